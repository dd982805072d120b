# Run after a unit test executable is built (cmake -P): lists its tests and
# writes a ctest file with one test per suite (`Suite.*` run in one process),
# where gtest_discover_tests writes one per test. A unit test is milliseconds;
# starting its ASan executable is about 0.17 s of CPU, which one process per
# test paid ~950 times.
#
# Inputs: EXE, OUT (the file to write), LABEL, TIMEOUT.
execute_process(COMMAND "${EXE}" --gtest_list_tests
                OUTPUT_VARIABLE listing RESULT_VARIABLE rc TIMEOUT 60)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${EXE} --gtest_list_tests failed (${rc}):\n${listing}")
endif()
string(REPLACE "\n" ";" lines "${listing}")
set(out "")
foreach(line IN LISTS lines)
  # Suite lines start at column 0 ("Suite." or "Prefix/Suite/0.  # TypeParam = ...").
  if(line MATCHES "^([^ #][^ ]*)\\.")
    set(suite "${CMAKE_MATCH_1}")
    string(APPEND out "add_test([=[${suite}.*]=] \"${EXE}\" [=[--gtest_filter=${suite}.*]=])\n")
    string(APPEND out "set_tests_properties([=[${suite}.*]=] PROPERTIES LABELS ${LABEL} TIMEOUT ${TIMEOUT})\n")
  endif()
endforeach()
file(WRITE "${OUT}" "${out}")
