#include "reports/timeline_svg.h"

#include <fmt/format.h>

#include <algorithm>

#include "reports/html_escape.h"

namespace killpoint {
namespace {

constexpr int kLabelWidth = 220;  // the lane titles on the left
constexpr int kLaneHeight = 48;
constexpr int kTrackY = 18;       // the lane's line, from the top of the lane
constexpr size_t kMaxLabel = 40;  // characters of a label drawn under a mark; beyond: cut
constexpr int kCharWidth = 6;     // px a character of an 11px label takes, about

size_t Chars(const std::string& s) {
  size_t n = 0;
  for (char c : s) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return n;
}

// A labelled mark's slot is as wide as its label (up to kMaxLabel characters), so that no
// label is cut where the lane has room for it.
int SlotWidth(const Mark& m) {
  switch (m.kind) {
    case MarkKind::kFailpoint:
      return 14;
    case MarkKind::kFailpoints:
      return 58;
    default:
      return std::max(76, kCharWidth * static_cast<int>(std::min(
                                           Chars(m.label), static_cast<size_t>(kMaxLabel) + 1)) +
                              10);
  }
}

// At most `n` characters (not bytes: a cut must not split a UTF-8 sequence).
std::string Shorten(const std::string& s, size_t n) {
  size_t chars = 0, i = 0;
  for (; i < s.size(); ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80 && ++chars > n) break;
  }
  return i == s.size() ? s : s.substr(0, i) + "\xE2\x80\xA6";
}

std::string Shape(MarkKind k, int x, int y) {
  switch (k) {
    case MarkKind::kFailpoint:
      return fmt::format(R"(<circle cx="{}" cy="{}" r="4" fill="#9ca3af"/>)", x, y);
    case MarkKind::kFailpoints:
      return fmt::format(
          R"(<rect x="{}" y="{}" width="48" height="14" rx="7" fill="#e5e7eb" stroke="#9ca3af"/>)",
          x - 24, y - 7);
    case MarkKind::kKill:
      return fmt::format(
          R"(<path d="M{0} {1}l14 14M{0} {2}l14 -14" stroke="#dc2626" stroke-width="3.5"/>)", x - 7,
          y - 7, y + 7);
    case MarkKind::kRollback:
      return fmt::format(R"(<path d="M{} {}l8 8l-8 8l-8 -8z" fill="#f59e0b"/>)", x, y - 8);
    case MarkKind::kPublish:
      return fmt::format(R"(<rect x="{}" y="{}" width="12" height="12" fill="#2563eb"/>)", x - 6,
                         y - 6);
    case MarkKind::kDuplicate:
      return fmt::format(
          R"(<rect x="{}" y="{}" width="14" height="14" fill="#dc2626" stroke="#7f1d1d" stroke-width="2"/>)",
          x - 7, y - 7);
    case MarkKind::kPublishFailed:
      return fmt::format(
          R"(<rect x="{}" y="{}" width="12" height="12" fill="#fff" stroke="#2563eb" stroke-width="2" stroke-dasharray="3 2"/>)",
          x - 6, y - 6);
    case MarkKind::kQuery:
      return fmt::format(
          R"(<circle cx="{0}" cy="{1}" r="7" fill="#0d9488"/><text x="{0}" y="{2}" class="q">?</text>)",
          x, y, y + 4);
    case MarkKind::kAlert:
      return fmt::format(R"(<path d="M{} {}l8 15h-16z" fill="#9333ea"/>)", x, y - 9);
    case MarkKind::kTimeout:
      return fmt::format(
          R"(<circle cx="{0}" cy="{1}" r="7" fill="#fff" stroke="#ea580c" stroke-width="2"/><path d="M{0} {1}v-5M{0} {1}h4" stroke="#ea580c" stroke-width="2"/>)",
          x, y);
    case MarkKind::kBadRequest:
      return fmt::format(
          R"(<circle cx="{0}" cy="{1}" r="7" fill="#6b7280"/><text x="{0}" y="{2}" class="q">!</text>)",
          x, y, y + 4);
    case MarkKind::kPause:
      return fmt::format(
          R"(<rect x="{}" y="{}" width="4" height="14" fill="#ca8a04"/><rect x="{}" y="{}" width="4" height="14" fill="#ca8a04"/>)",
          x - 6, y - 7, x + 2, y - 7);
    case MarkKind::kResume:
      return fmt::format(R"(<path d="M{} {}l12 7l-12 7z" fill="#16a34a"/>)", x - 5, y - 7);
    case MarkKind::kOverlap:
      return fmt::format(
          R"(<circle cx="{}" cy="{}" r="6" fill="none" stroke="#0891b2" stroke-width="2"/><circle cx="{}" cy="{}" r="6" fill="none" stroke="#0891b2" stroke-width="2"/>)",
          x - 3, y, x + 3, y);
    case MarkKind::kRetry:
      return fmt::format(
          R"(<circle cx="{0}" cy="{1}" r="7" fill="#fff" stroke="#0d9488" stroke-width="2"/><path d="M{0} {2}l4 -3l-4 -3" fill="none" stroke="#0d9488" stroke-width="2"/>)",
          x, y, y + 3);
    case MarkKind::kLockWait:  // a padlock
      return fmt::format(
          R"(<path d="M{} {}v-3a4 4 0 0 1 8 0v3" fill="none" stroke="#b45309" stroke-width="2"/><rect x="{}" y="{}" width="12" height="9" fill="#b45309"/>)",
          x - 4, y - 1, x - 6, y - 1);
    case MarkKind::kNetFault:  // a cut line
      return fmt::format(
          R"(<path d="M{} {}h7l-4 7h7" fill="none" stroke="#be123c" stroke-width="2"/>)", x - 5,
          y - 4);
    case MarkKind::kOutside:  // an arrow leaving a box
      return fmt::format(
          R"(<rect x="{}" y="{}" width="10" height="10" fill="none" stroke="#be123c" stroke-width="2"/><path d="M{} {}l7 -7m-4 0h4v4" fill="none" stroke="#be123c" stroke-width="2"/>)",
          x - 6, y - 4, x, y, x, y);
    case MarkKind::kCrashCheck:  // a magnifying glass
      return fmt::format(
          R"(<circle cx="{}" cy="{}" r="5" fill="none" stroke="#4f46e5" stroke-width="2"/><path d="M{} {}l5 5" stroke="#4f46e5" stroke-width="2.5"/>)",
          x - 2, y - 2, x + 2, y + 2);
  }
  return "";
}

// The tooltip: the mark's full label (a crash point's name in full) and its details.
std::string Tooltip(const Mark& m) {
  if (m.label.empty() || m.detail.find(m.label) != std::string::npos) return m.detail;
  return m.label + ": " + m.detail;
}

std::string DrawMark(const Mark& m, int x, int y) {
  std::string out = "<g><title>" + HtmlEscape(Tooltip(m)) + "</title>" + Shape(m.kind, x, y);
  if (m.kind == MarkKind::kFailpoints) {
    out += fmt::format(R"(<text x="{}" y="{}" class="n">{}</text>)", x, y + 3, HtmlEscape(m.label));
  } else if (m.kind != MarkKind::kFailpoint) {
    out += fmt::format(R"(<text x="{}" y="{}" class="l">{}</text>)", x, y + 22,
                       HtmlEscape(Shorten(m.label, kMaxLabel)));
  }
  return out + "</g>";
}

std::string WaitText(int64_t ms) {
  return ms % 1000 == 0 ? fmt::format("retry after {}s (virtual)", ms / 1000)
                        : fmt::format("retry after {}ms (virtual)", ms);
}

// One lane at vertical offset `top`; returns its SVG and sets `right` to where it ends.
std::string DrawLane(const Lane& lane, int top, int& right) {
  int y = top + kTrackY;
  std::string out =
      fmt::format(R"(<text x="8" y="{}" class="t">{}</text>)", y + 4, HtmlEscape(lane.Title()));
  if (lane.wait_before_ms >= 0) {
    out += fmt::format(R"(<text x="8" y="{}" class="w">&#8635; {}</text>)", y + 20,
                       WaitText(lane.wait_before_ms));
  }
  int x = kLabelWidth;
  std::string marks;
  for (const Mark& m : lane.marks) {
    int w = SlotWidth(m);
    marks += DrawMark(m, x + w / 2, y);
    x += w;
  }
  out += fmt::format(R"(<line x1="{}" y1="{}" x2="{}" y2="{}" class="track"/>)", kLabelWidth - 6, y,
                     x + 4, y);
  out += marks;
  std::string outcome = lane.outcome + (lane.gave_up ? "; scheduler gave up" : "");
  out += fmt::format(R"(<text x="{}" y="{}" class="{}">{}</text>)", x + 10, y + 4,
                     lane.succeeded ? "ok" : "bad", HtmlEscape(outcome));
  right = x + 10 + 7 * static_cast<int>(outcome.size());
  return out;
}

}  // namespace

std::string RenderTimelineSvg(const Timeline& t) {
  std::string body;
  int width = kLabelWidth + 200;
  for (size_t i = 0; i < t.lanes.size(); ++i) {
    int top = static_cast<int>(i) * kLaneHeight;
    if (i > 0 && t.lanes[i].biz_date != t.lanes[i - 1].biz_date) {
      body += fmt::format(R"(<line x1="0" y1="{0}" x2="100%" y2="{0}" class="sep"/>)", top);
    }
    int right = 0;
    body += DrawLane(t.lanes[i], top, right);
    width = std::max(width, right + 16);
  }
  int height = std::max(1, static_cast<int>(t.lanes.size())) * kLaneHeight;
  return fmt::format(
      R"(<svg class="timeline" xmlns="http://www.w3.org/2000/svg" width="{0}" height="{1}" viewBox="0 0 {0} {1}" role="img" aria-label="one lane per attempt">{2}</svg>)",
      width, height, body);
}

std::string RenderTimelineLegend() {
  const MarkKind kinds[] = {
      MarkKind::kFailpoint,  MarkKind::kFailpoints, MarkKind::kKill,          MarkKind::kRollback,
      MarkKind::kPublish,    MarkKind::kDuplicate,  MarkKind::kPublishFailed, MarkKind::kQuery,
      MarkKind::kAlert,      MarkKind::kTimeout,    MarkKind::kBadRequest,    MarkKind::kPause,
      MarkKind::kResume,     MarkKind::kOverlap,    MarkKind::kRetry,         MarkKind::kLockWait,
      MarkKind::kCrashCheck, MarkKind::kOutside,    MarkKind::kNetFault};
  std::string out;
  for (MarkKind k : kinds) {
    int width = k == MarkKind::kFailpoints ? 52 : 22;
    out += fmt::format(
        R"(<span><svg class="mark" xmlns="http://www.w3.org/2000/svg" width="{0}" height="20" viewBox="0 0 {0} 20" aria-hidden="true">{1}</svg> {2}</span>)",
        width, Shape(k, width / 2, 10), ToString(k));
  }
  return out;
}

}  // namespace killpoint
