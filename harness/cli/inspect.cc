#include "cli/inspect.h"

#include "reports/keep_hints.h"

namespace killpoint {

void PrintInspectCommands(std::ostream& out, const Scenario& s, const std::filesystem::path& box) {
  out << "  sandbox kept: " << box.string() << "\n";
  const char* lead = "  inspect: ";
  for (const std::string& command : KeepHints(box, s.check.state_file)) {
    out << lead << command << "\n";
    lead = "           ";
  }
}

}  // namespace killpoint
