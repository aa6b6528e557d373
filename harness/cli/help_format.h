// The help's layout: a subcommand's help begins with its own usage line (`Usage: killpoint
// explore [OPTIONS] scenario`), then its description, its options and the exit codes.
// CLI11's default puts the description first.
#pragma once

#include <CLI/CLI.hpp>
#include <sstream>
#include <string>

namespace killpoint {

class UsageFirstFormatter : public CLI::Formatter {
 public:
  std::string make_help(const CLI::App* app, std::string name,
                        CLI::AppFormatMode mode) const override {
    if (mode == CLI::AppFormatMode::Sub) return make_expanded(app);
    std::stringstream out;
    out << make_usage(app, name) << make_description(app) << make_positionals(app)
        << make_groups(app, mode) << make_subcommands(app, mode) << '\n'
        << make_footer(app);
    return out.str();
  }

  // A positional named COMMAND takes everything after `--`: "killpoint init [OPTIONS] --
  // COMMAND...".
  std::string make_option_usage(const CLI::Option* opt) const override {
    std::string usage = CLI::Formatter::make_option_usage(opt);
    return opt->get_name() == "COMMAND" ? "-- " + usage : usage;
  }
};

}  // namespace killpoint
