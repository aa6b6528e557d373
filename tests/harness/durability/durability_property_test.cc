// The persistence models checked against an independent reference model.
//
// RapidCheck generates a start state (files a, b, c, d/a, some with content, directory d) and
// a sequence of file operations (one of them may make a directory e and use it). Each operation is
// done for real in a temporary sandbox, and the tracker hears of it as the runner would tell it
// (DurabilityTracker::OnOperation before the operation, writes reported late, see
// docs/syscall-shim.md). After the last operation the job is "killed", Apply rewrites the sandbox
// under each model, and the tree it leaves must be one that the reference allows. The reference
// knows nothing of the tracker or of a real file system: abstract inodes, directory entries and
// each inode's content versions, as in ALICE's abstract persistence model (Pillai et al., OSDI
// 2014):
//   process: exactly the state at the kill;
//   power:   each directory's entries as of its last fsync (else at the start); each file's
//            content that of its inode at its last fsync/fdatasync (else at the start, else empty);
//   torn (and ext4-ordered, and any model without a reference of its own, which must be one of
//            the states torn allows): each directory at a
//            point of its own between its last fsync and the kill, naming the inodes it named
//            then; each inode's content between the shortest and the longest of its versions
//            since its last sync, each 512-byte sector that of one of those versions (zeros past
//            a version's end); an inode under two names shows the same content under both.
// Rerun: build/tests/run_test --gtest_filter='DurabilityProperty.*'; a failure prints the
// operations, the tree the model produced and the reference's inodes, and RapidCheck prints
// the RC_PARAMS="reproduce=..." that replays it.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "durability/durability.h"
#include "durability/model_registry.h"

namespace killpoint {
namespace {

namespace fs = std::filesystem;
constexpr size_t kSector = 512;

// ---- Operations ----------------------------------------------------------------------------

enum class Kind { kCreate, kWrite, kTruncate, kSync, kRename, kUnlink, kDirSync, kMkdir, kSyncAll };

struct Op {
  Kind kind = Kind::kCreate;
  std::string path;    // the file, or the directory of a kDirSync
  std::string to;      // kRename: the destination
  size_t offset = 0;   // kWrite
  size_t size = 0;     // kWrite: bytes written; kTruncate: the new size
  char fill = 'x';     // kWrite: the byte written
  bool flag = false;   // kCreate: O_EXCL; kSync, kDirSync: fdatasync; kWrite: the fd stays open (no
                       // close point)
  bool trunc = false;  // kCreate: O_TRUNC
};

std::string Show(const Op& op) {
  std::ostringstream o;
  switch (op.kind) {
    case Kind::kCreate:
      o << "open(" << op.path << ", O_CREAT" << (op.flag ? "|O_EXCL" : "")
        << (op.trunc ? "|O_TRUNC" : "") << ")";
      break;
    case Kind::kWrite:
      o << "pwrite(" << op.path << ", '" << op.fill << "' x " << op.size << " at " << op.offset
        << ")" << (op.flag ? " (no close)" : "");
      break;
    case Kind::kTruncate:
      o << "ftruncate(" << op.path << ", " << op.size << ")";
      break;
    case Kind::kSync:
      o << (op.flag ? "fdatasync(" : "fsync(") << op.path << ")";
      break;
    case Kind::kRename:
      o << "rename(" << op.path << ", " << op.to << ")";
      break;
    case Kind::kUnlink:
      o << "unlink(" << op.path << ")";
      break;
    case Kind::kDirSync:
      o << (op.flag ? "fdatasync(dir " : "fsync(dir ") << op.path << ")";
      break;
    case Kind::kMkdir:
      o << "mkdir(" << op.path << ")";
      break;
    case Kind::kSyncAll:
      o << "sync()";
      break;
  }
  return o.str();
}

std::ostream& operator<<(std::ostream& o, const Op& op) { return o << Show(op); }

const std::vector<std::string> kFiles = {"a", "b", "c", "t", "d/a", "d/t", "e/a", "e/t"};

rc::Gen<Op> GenOp() {
  return rc::gen::exec([] {
    Op op;
    op.kind = *rc::gen::weightedElement<Kind>({{3, Kind::kCreate},
                                               {4, Kind::kWrite},
                                               {1, Kind::kTruncate},
                                               {3, Kind::kSync},
                                               {3, Kind::kRename},
                                               {2, Kind::kUnlink},
                                               {2, Kind::kDirSync},
                                               {1, Kind::kMkdir},
                                               {1, Kind::kSyncAll}});
    op.path = op.kind == Kind::kMkdir     ? std::string("e")
              : op.kind == Kind::kSyncAll ? std::string(".")
              : op.kind == Kind::kDirSync ? *rc::gen::element<std::string>(".", "d", "e")
                                          : *rc::gen::elementOf(kFiles);
    if (op.kind == Kind::kRename) op.to = *rc::gen::elementOf(kFiles);
    if (op.kind == Kind::kWrite) {
      op.offset = *rc::gen::element<size_t>(0, 100, 511, 512, 1000);
      op.size = *rc::gen::inRange<size_t>(1, 1300);
      op.fill = *rc::gen::inRange('a', '{');
    }
    if (op.kind == Kind::kTruncate) op.size = *rc::gen::element<size_t>(0, 10, 512, 700, 1500);
    op.flag = *rc::gen::element(false, true);
    if (op.kind == Kind::kCreate) op.trunc = *rc::gen::element(false, true);
    return op;
  });
}

struct Case {
  std::map<std::string, std::string> start;  // the files at the start (d exists always)
  std::vector<Op> ops;
  uint64_t seed = 0;
};

rc::Gen<Case> GenCase() {
  return rc::gen::exec([] {
    Case c;
    char fill = 'A';
    for (const char* name : {"a", "b", "c", "d/a"}) {
      if (*rc::gen::element(true, true, false)) {
        c.start[name] = std::string(*rc::gen::element<size_t>(0, 5, 600, 1100), fill);
      }
      ++fill;
    }
    c.ops = *rc::gen::scale(0.2, rc::gen::container<std::vector<Op>>(GenOp()));
    c.seed = *rc::gen::arbitrary<uint64_t>();
    return c;
  });
}

void showValue(const Case& c, std::ostream& o) {
  o << "start:";
  for (const auto& [path, content] : c.start)
    o << " " << path << " (" << content.size() << " bytes)";
  o << "; operations:";
  for (const auto& op : c.ops) o << " " << Show(op) << ";";
  o << " seed " << c.seed;
}

// ---- The reference model ---------------------------------------------------------------------

std::pair<std::string, std::string> Split(const std::string& path) {
  size_t slash = path.rfind('/');
  if (slash == std::string::npos) return {".", path};
  return {path.substr(0, slash), path.substr(slash + 1)};
}

struct Reference {
  struct Inode {
    std::vector<std::string> versions;  // every content it had, in order
    size_t synced = 0;                  // the version its last fsync/fdatasync saw (else the first)
    const std::string& Durable() const { return versions[synced]; }
    const std::string& Now() const { return versions.back(); }
  };
  using Names = std::map<std::string, std::map<std::string, int>>;  // directory -> name -> inode
  static constexpr int kDirectory = -1;  // the "inode" of an entry that names a directory (e)

  std::vector<Inode> inodes;
  std::vector<Names> states;                 // the namespace at the start and after each operation
  std::map<std::string, size_t> dir_synced;  // directory -> index in states of its last fsync
  Names now;

  explicit Reference(const std::map<std::string, std::string>& start) {
    now["."];
    now["d"];
    for (const auto& [path, content] : start) {
      auto [dir, name] = Split(path);
      now[dir][name] = static_cast<int>(inodes.size());
      inodes.push_back({{content}, 0});
    }
    states.push_back(now);
    dir_synced = {{".", 0}, {"d", 0}};
  }

  const int* Find(const std::string& path) const {
    auto [dir, name] = Split(path);
    if (!now.count(dir)) return nullptr;
    auto it = now.at(dir).find(name);
    return it == now.at(dir).end() ? nullptr : &it->second;
  }
  void Change(int id, std::string content) { inodes[id].versions.push_back(std::move(content)); }

  // Does the operation (on the reference); false if it cannot be done (a missing file): the
  // test then skips it.
  bool Do(const Op& op) {
    bool dir_op = op.kind == Kind::kDirSync || op.kind == Kind::kMkdir || op.kind == Kind::kSyncAll;
    const int* id = dir_op ? nullptr : Find(op.path);
    if (!id && !dir_op && op.kind != Kind::kCreate) return false;
    if (op.kind == Kind::kRename && (op.path == op.to || !now.count(Split(op.to).first)))
      return false;
    if (op.kind == Kind::kMkdir && now.count(op.path)) return false;     // e exists already
    if (op.kind == Kind::kDirSync && !now.count(op.path)) return false;  // e does not exist yet
    auto [dir, name] = Split(op.path);
    if (!now.count(dir)) return false;  // a create in e before mkdir(e)
    switch (op.kind) {
      case Kind::kCreate:
        if (!id) {
          now[dir][name] = static_cast<int>(inodes.size());
          inodes.push_back({{""}, 0});
        } else if (op.trunc && !op.flag) {
          Change(*id, "");
        }
        break;
      case Kind::kWrite: {
        std::string content = inodes[*id].Now();
        if (content.size() < op.offset + op.size) content.resize(op.offset + op.size, '\0');
        std::fill_n(content.begin() + static_cast<long>(op.offset), op.size, op.fill);
        Change(*id, std::move(content));
        break;
      }
      case Kind::kTruncate: {
        std::string content = inodes[*id].Now();
        content.resize(op.size, '\0');
        Change(*id, std::move(content));
        break;
      }
      case Kind::kSync:
        inodes[*id].synced = inodes[*id].versions.size() - 1;
        break;
      case Kind::kRename: {
        int moved = *id;
        now[dir].erase(name);
        auto [to_dir, to_name] = Split(op.to);
        now[to_dir][to_name] = moved;
        break;
      }
      case Kind::kUnlink:
        now[dir].erase(name);
        break;
      case Kind::kDirSync:
        dir_synced[op.path] = states.size() - 1;
        break;
      case Kind::kMkdir:
        now[op.path];
        now["."][op.path] = kDirectory;
        break;
      case Kind::kSyncAll:  // every inode's content and every directory's entries, as now
        for (const auto& [d, names] : now) {
          dir_synced[d] = states.size() - 1;
          for (const auto& [n, inode] : names) {
            if (inode != kDirectory) inodes[inode].synced = inodes[inode].versions.size() - 1;
          }
        }
        break;
    }
    states.push_back(now);
    return true;
  }
};

// Relpath of a file -> content; a directory other than d (always there) as "e/" -> "".
using Tree = std::map<std::string, std::string>;
using Cut = std::map<std::string, size_t>;  // directory -> the index in states it shows

// The entries of `dir` at state `at`, if the root names it at `cut`; none else.
const std::map<std::string, int>& EntriesAt(const Reference& ref, const Cut& cut,
                                            const std::string& dir, size_t at) {
  static const std::map<std::string, int> kNone;
  const auto& state = ref.states[at];
  bool named = dir == "." || dir == "d" || ref.states[cut.at(".")].at(".").count(dir);
  return named && state.count(dir) ? state.at(dir) : kNone;
}

Cut AllAt(size_t at) { return {{".", at}, {"d", at}, {"e", at}}; }

Tree Flatten(const Reference& ref, const Cut& cut, bool durable_content) {
  Tree out;
  for (const auto& [dir, at] : cut) {
    for (const auto& [name, id] : EntriesAt(ref, cut, dir, at)) {
      if (id == Reference::kDirectory) {
        out[name + "/"] = "";
        continue;
      }
      const auto& inode = ref.inodes[id];
      out[dir == "." ? name : dir + "/" + name] = durable_content ? inode.Durable() : inode.Now();
    }
  }
  return out;
}

// Is `content` one the inode can show after a crash: a length within its versions' since its
// last sync, each sector that of one of them (zeros past a version's end)?
bool ContentAllowed(const Reference::Inode& inode, const std::string& content) {
  std::vector<const std::string*> versions;
  for (size_t i = inode.synced; i < inode.versions.size(); ++i)
    versions.push_back(&inode.versions[i]);
  size_t lo = SIZE_MAX, hi = 0;
  for (const auto* v : versions) lo = std::min(lo, v->size()), hi = std::max(hi, v->size());
  if (content.size() < lo || content.size() > hi) return false;
  for (size_t at = 0; at < content.size(); at += kSector) {
    size_t end = std::min(content.size(), at + kSector);
    bool found = std::any_of(versions.begin(), versions.end(), [&](const std::string* v) {
      for (size_t i = at; i < end; ++i) {
        if (content[i] != (i < v->size() ? (*v)[i] : '\0')) return false;
      }
      return true;
    });
    if (!found) return false;
  }
  return true;
}

// Do the directories' states at `cut` name exactly the files of `tree`, each with a content
// its inode allows, the same for every name of one inode?
bool Matches(const Reference& ref, const Cut& cut, const Tree& tree) {
  std::map<int, const std::string*> shown;
  size_t names = 0;
  for (const auto& [dir, at] : cut) {
    for (const auto& [name, id] : EntriesAt(ref, cut, dir, at)) {
      if (id == Reference::kDirectory) {
        if (!tree.count(name + "/")) return false;
        ++names;
        continue;
      }
      auto it = tree.find(dir == "." ? name : dir + "/" + name);
      if (it == tree.end() || !ContentAllowed(ref.inodes[id], it->second)) return false;
      auto [seen, fresh] = shown.emplace(id, &it->second);
      if (!fresh && *seen->second != it->second) return false;
      ++names;
    }
  }
  return names == tree.size();
}

bool TornAllows(const Reference& ref, const Tree& tree) {
  size_t last = ref.states.size() - 1;
  auto synced = [&](const char* dir) {
    return ref.dir_synced.count(dir) ? ref.dir_synced.at(dir) : 0;
  };
  for (size_t root = synced("."); root <= last; ++root) {
    for (size_t d = synced("d"); d <= last; ++d) {
      for (size_t e = synced("e"); e <= last; ++e) {
        if (Matches(ref, {{".", root}, {"d", d}, {"e", e}}, tree)) return true;
      }
    }
  }
  return false;
}

// ---- Printing ----------------------------------------------------------------------------------

// "'A' x 600, '\0' x 12": a content as runs of one byte.
std::string Runs(const std::string& s) {
  if (s.empty()) return "(empty)";
  std::ostringstream o;
  for (size_t at = 0; at < s.size();) {
    size_t end = s.find_first_not_of(s[at], at);
    if (end == std::string::npos) end = s.size();
    if (at) o << ", ";
    if (s[at] == '\0')
      o << "'\\0'";
    else
      o << "'" << s[at] << "'";
    o << " x " << end - at;
    at = end;
  }
  return o.str();
}

std::string ShowTree(const Tree& tree) {
  std::ostringstream o;
  if (tree.empty()) o << "    (no files)\n";
  for (const auto& [path, content] : tree) o << "    " << path << ": " << Runs(content) << "\n";
  return o.str();
}

std::string ShowReference(const Reference& ref) {
  std::ostringstream o;
  for (size_t i = 0; i < ref.inodes.size(); ++i) {
    const auto& inode = ref.inodes[i];
    o << "    inode " << i << ":";
    for (size_t v = 0; v < inode.versions.size(); ++v) {
      o << (v == inode.synced ? " [synced] " : " ") << "v" << v << " " << Runs(inode.versions[v])
        << ";";
    }
    o << "\n";
  }
  for (size_t at = 0; at < ref.states.size(); ++at) {
    o << "    names after " << at << " ops:";
    for (const auto& [dir, names] : ref.states[at]) {
      for (const auto& [name, id] : names) {
        o << " " << (dir == "." ? name : dir + "/" + name);
        o << (id == Reference::kDirectory ? std::string("/") : "=inode " + std::to_string(id));
      }
    }
    o << "\n";
  }
  for (const auto& [dir, at] : ref.dir_synced)
    o << "    directory " << dir << " synced after " << at << " ops\n";
  return o.str();
}

// ---- The real sandbox -------------------------------------------------------------------------

// Runs the operations in a fresh sandbox and reports them to the tracker as the harness does:
// each point before its operation, a write's point late (the shim queues it and sends it in
// front of the next point the job waits at; one still queued at the kill is lost). Real
// fsyncs are skipped, as with KILLPOINT_SKIP_FSYNC: the tracker only hears of them.
class ScratchDir {
 public:
  explicit ScratchDir(const Case& c) {
    static int n = 0;
    // tmpfs when there is one: the disk's journal would cost seconds (the tracker reads and
    // lists files only; ext4's reuse of inode numbers is pinned in durability_test.cc).
    std::error_code ec;
    fs::path tmp =
        fs::is_directory("/dev/shm", ec) ? fs::path("/dev/shm") : fs::temp_directory_path();
    root_ = tmp / ("kp-durability-prop-" + std::to_string(::getpid()) + "-" + std::to_string(n++));
    fs::remove_all(root_);
    fs::create_directories(root_ / "d");
    for (const auto& [path, content] : c.start)
      std::ofstream(root_ / path, std::ios::binary) << content;
  }
  ~ScratchDir() {
    fs::remove_all(root_);
    fs::remove_all(journal());
  }

  DurabilityTracker& tracker() { return tracker_; }
  const fs::path& root() const { return root_; }
  // The durability journal (power with the shim), beside the sandbox.
  fs::path journal() const { return root_.string() + "-journal"; }

  void Do(const Op& op) {
    std::string p = (root_ / op.path).string();
    switch (op.kind) {
      case Kind::kCreate: {
        Point("open:" + op.path);
        int fd =
            ::open(p.c_str(),
                   O_CREAT | O_WRONLY | (op.flag ? O_EXCL : 0) | (op.trunc ? O_TRUNC : 0), 0644);
        if (fd >= 0) Close(fd, op.path);
        break;
      }
      case Kind::kWrite: {
        int fd = ::open(p.c_str(), O_WRONLY);
        late_.push_back("write:" + op.path);
        std::string bytes(op.size, op.fill);
        RC_ASSERT(::pwrite(fd, bytes.data(), bytes.size(), static_cast<off_t>(op.offset)) ==
                  static_cast<ssize_t>(bytes.size()));
        if (op.flag)
          ::close(fd);  // as if left open: no close point
        else
          Close(fd, op.path);
        break;
      }
      case Kind::kTruncate: {
        int fd = ::open(p.c_str(), O_WRONLY);
        Point("truncate:" + op.path);
        RC_ASSERT(::ftruncate(fd, static_cast<off_t>(op.size)) == 0);
        Close(fd, op.path);
        break;
      }
      case Kind::kSync:
      case Kind::kDirSync: {
        int fd = ::open(p.c_str(), O_RDONLY);
        Point((op.flag ? "fdatasync:" : "fsync:") + op.path);
        Record(p);
        Close(fd, op.path);
        break;
      }
      case Kind::kRename:
        Point("rename:" + op.path + ":" + op.to);
        RC_ASSERT(::rename(p.c_str(), (root_ / op.to).c_str()) == 0);
        break;
      case Kind::kUnlink:
        Point("unlink:" + op.path);
        RC_ASSERT(::unlink(p.c_str()) == 0);
        break;
      case Kind::kMkdir:  // the shim does not wait at mkdir: its point comes late
        late_.push_back("mkdir:" + op.path);
        RC_ASSERT(::mkdir(p.c_str(), 0755) == 0);
        break;
      case Kind::kSyncAll:  // the supervisor's "sync:.", which waits
        Point("sync:.");
        break;
    }
  }

  Tree Read() const {
    Tree out;
    for (const auto& e : fs::recursive_directory_iterator(root_)) {
      std::string rel = fs::relative(e.path(), root_).string();
      if (e.is_directory()) {
        if (rel != "d") out[rel + "/"] = "";
        continue;
      }
      std::ifstream in(e.path(), std::ios::binary);
      out[rel] = std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    }
    RC_ASSERT(fs::is_directory(root_ / "d"));
    return out;
  }

 private:
  void Point(const std::string& point) {
    for (const auto& queued : late_) tracker_.OnOperation(queued);
    late_.clear();
    tracker_.OnOperation(point);
  }
  // What the shim adds to the journal at a regular file's sync, when the tracker keeps one
  // (harness/shim/shadow.h): the whole content, or, when it starts with part of what was
  // recorded last for the file, an A line with that part kept and the rest.
  void Record(const fs::path& p) {
    struct stat st;
    if (tracker_.journal().empty() || ::stat(p.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return;
    std::ifstream in(p, std::ios::binary);
    std::string content{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    fs::path data = tracker_.journal() / "data-7";
    std::error_code ec;
    uintmax_t off = fs::exists(data, ec) ? fs::file_size(data) : 0;
    auto last = recorded_.find(st.st_ino);
    size_t keep = 0;
    if (last != recorded_.end()) {
      while (keep < last->second.size() && keep < content.size() &&
             last->second[keep] == content[keep])
        ++keep;
    }
    std::ofstream(data, std::ios::binary | std::ios::app) << content.substr(keep);
    std::ofstream line(tracker_.journal() / "journal", std::ios::app);
    if (last == recorded_.end() || keep == 0) {
      line << "F " << st.st_ino << " 7 " << off << " " << content.size() << "\n";
    } else {
      line << "A " << st.st_ino << " 7 " << off << " " << content.size() - keep << " " << keep
           << "\n";
    }
    recorded_[st.st_ino] = content;
  }
  void Close(int fd, const std::string& path) {
    Point("close:" + path);
    ::close(fd);
  }

  fs::path root_;
  DurabilityTracker tracker_;
  std::vector<std::string> late_;
  std::map<ino_t, std::string> recorded_;  // the journal's last content of each inode number
};

std::string Describe(const Case& c, const std::vector<Op>& done, PersistenceModel model,
                     uint64_t seed, const Tree& got, const Reference& ref) {
  std::ostringstream o;
  o << "model " << model << " (seed " << seed
    << ") produced a state the reference does not allow.\n  start:\n"
    << ShowTree(c.start) << "  operations (then a kill):\n";
  for (const auto& op : done) o << "    " << Show(op) << "\n";
  o << "  after Apply:\n" << ShowTree(got) << "  the reference:\n" << ShowReference(ref);
  return o.str();
}

// Runs the case under `model`; fails the property if the tree Apply leaves is not allowed.
// `journal`: as with the shim under power, regular files' syncs reach the tracker through the
// durability journal.
void Check(const Case& c, const std::vector<Op>& done, const Reference& ref, PersistenceModel model,
           uint64_t seed, bool journal = false) {
  ScratchDir box(c);
  RC_ASSERT(static_cast<bool>(
      box.tracker().Begin(box.root(), model, journal ? box.journal() : fs::path{})));
  RC_ASSERT(box.tracker().journal().empty() == !journal);
  for (const auto& op : done) box.Do(op);
  RC_ASSERT(box.Read() == Flatten(ref, AllAt(ref.states.size() - 1), false));
  auto changes = box.tracker().Apply(model, seed);
  RC_ASSERT(static_cast<bool>(changes));
  Tree got = box.Read();
  bool ok = false;
  if (model == PersistenceModel::kProcess) {
    ok = got == Flatten(ref, AllAt(ref.states.size() - 1), false);
  } else if (model == PersistenceModel::kPower) {
    Cut synced = AllAt(0);
    for (const auto& [dir, at] : ref.dir_synced) synced[dir] = at;
    ok = got == Flatten(ref, synced, true);
  } else {
    ok = TornAllows(ref, got);
  }
  if (!ok) RC_FAIL(Describe(c, done, model, seed, got, ref));
}

RC_GTEST_PROP(DurabilityProperty, EveryModelProducesOnlyStatesTheReferenceAllows, ()) {
  Case c = *GenCase();
  Reference ref(c.start);
  std::vector<Op> done;  // the operations that can be done, in order
  for (const auto& op : c.ops) {
    if (ref.Do(op)) done.push_back(op);
  }
  // Every registered unit (durability/model_registry.h): a seeded one under four seeds, one
  // that takes the interceptor's journal also with it.
  for (const auto& unit : durability::ModelUnits()) {
    auto model = unit.make();
    if (!model->Seeded()) Check(c, done, ref, unit.model, 0);
    for (uint64_t i = 0; model->Seeded() && i < 4; ++i) Check(c, done, ref, unit.model, c.seed + i);
    if (model->TakesJournal()) Check(c, done, ref, unit.model, 0, true);
  }
}

}  // namespace
}  // namespace killpoint
