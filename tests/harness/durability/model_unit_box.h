// A scratch sandbox to drive one persistence model's unit (harness/durability/model.h) without
// the tracker: the tests tell the unit what the tracker would, and read what it says survives.
#pragma once

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "durability/model.h"
#include "durability/rewrite.h"
#include "durability/tree.h"

namespace killpoint::durability {

class ModelUnitBox {
 public:
  explicit ModelUnitBox(Model& unit) : unit_(unit) {
    static int n = 0;
    work_ = std::filesystem::temp_directory_path() /
            ("kp-model-unit-" + std::to_string(::getpid()) + "-" + std::to_string(n++));
    std::filesystem::remove_all(work_);
    std::filesystem::create_directories(work_);
    sandbox_.Reset(work_);
  }
  ~ModelUnitBox() { std::filesystem::remove_all(work_); }

  bool Begin() {
    Tree start;
    return sandbox_.Snapshot(start) && unit_.Begin(sandbox_, start);
  }
  void Write(const std::string& path, const std::string& content) {
    std::ofstream(work_ / path, std::ios::binary | std::ios::trunc) << content;
  }
  // The job is about to do `op` on `path` (not a rename).
  void Before(std::string_view op, const std::string& path) {
    Operation o;
    o.op = op;
    o.path = path;
    o.exists = sandbox_.StatPath(path, o.st);
    unit_.OnOperation(sandbox_, o);
  }
  // An fsync of `path`, a file or a directory, as the tracker reads it.
  void Fsync(const std::string& path, bool datasync = false) {
    Sync s;
    s.path = path;
    s.datasync = datasync;
    std::filesystem::path p = sandbox_.PathOf(path);
    if (::stat(p.c_str(), &s.st) != 0) return unit_.OnSync(sandbox_, s);
    if (S_ISDIR(s.st.st_mode)) {
      s.kind = Sync::Kind::kDir;
      if (auto entries = sandbox_.List(p)) s.entries = entries.value();
    } else {
      s.kind = Sync::Kind::kFile;
      s.id = sandbox_.Id(s.st.st_ino);
      s.content = Slurp(p);
    }
    unit_.OnSync(sandbox_, s);
  }
  // What the unit says survives a crash now, by path.
  Flat Survivors(uint64_t seed = 1) {
    Tree now;
    if (!sandbox_.Snapshot(now)) return {};
    return Flatten(unit_.Survivors(sandbox_, now, seed));
  }
  const std::filesystem::path& work() const { return work_; }

 private:
  Model& unit_;
  std::filesystem::path work_;
  Sandbox sandbox_;
};

}  // namespace killpoint::durability
