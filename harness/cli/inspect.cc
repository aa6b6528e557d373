#include "cli/inspect.h"

namespace killpoint {

void PrintInspectCommands(std::ostream& out, const Scenario& s, const std::filesystem::path& box) {
  std::filesystem::path work = box / "work";
  out << "  sandbox kept: " << box.string() << "\n"
      << "  inspect: ls -la " << work.string() << "; ls " << (box / "logs").string() << "\n";
  std::error_code ec;
  if (std::filesystem::exists(work / s.check.db, ec))
    out << "           sqlite3 " << (work / s.check.db).string() << " .dump\n";
  if (!s.check.state_file.empty())
    out << "           cat " << (work / s.check.state_file).string() << "\n";
}

}  // namespace killpoint
