// Every built-in invariant by name (the names of scenario/vocabulary.h): check/'s checkers and
// journal_complete (selftest_check.cc: killpoint's own results writer, crashed by killpoint,
// lost no finished trial), which reads this stage's journals and so lives beside them.
#pragma once

#include "check/checker.h"

namespace killpoint {

const Checkers& AllCheckers();

}  // namespace killpoint
