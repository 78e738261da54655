// The verdict locks: every committed run (results/<gpu>/<run>/bench.json) and every archived one
// (results/archive/<gpu>/<run>.tar.xz) has a lock of its verdict counts per family, metric, kind
// and verdict, and the analysis of today must give exactly those counts. A rule change that moves a
// verdict updates the lock in the same commit (scripts/update-verdict-locks.sh) and says what moved
// in docs/verdict-changes.md. Only files git tracks count (git ls-files): what a user put in
// results/ does not.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <unistd.h>

#include "analysis/cli.hpp"
#include "core/run_reader.hpp"
#include "analysis/evaluation.hpp"
#include "analysis/verdict_lock.hpp"

namespace warpcost::analysis {
namespace {

namespace fs = std::filesystem;

const fs::path kRoot = fs::path(WARPCOST_RESULTS).parent_path();

// A folder of this process's own, removed with everything in it when the test ends.
class TempDir {
 public:
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / ("warpcost-lock-" + std::to_string(::getpid()) + "-XXXXXX")).string();
    if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("cannot make a temporary folder");
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The output of a shell command and its exit status.
std::pair<std::string, int> shell(const std::string& command) {
  std::string out;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) return {"", -1};
  char buffer[4096];
  while (const std::size_t n = std::fread(buffer, 1, sizeof buffer, pipe)) out.append(buffer, n);
  const int status = ::pclose(pipe);
  return {out, status};
}

std::string quoted(const fs::path& p) {
  std::string q = "'";
  for (const char c : p.string()) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// What git tracks under results/, or empty with `why` set when git cannot say.
std::vector<std::string> tracked_results(std::string& why) {
  const auto [out, status] = shell("git -C " + quoted(kRoot) + " ls-files -z -- results 2>/dev/null");
  if (status != 0) {
    why = "git ls-files failed in " + kRoot.string() + " (not a git checkout, or no git)";
    return {};
  }
  std::vector<std::string> files;
  std::size_t start = 0;
  for (std::size_t nul = out.find('\0'); nul != std::string::npos; nul = out.find('\0', start)) {
    files.push_back(out.substr(start, nul - start));
    start = nul + 1;
  }
  return files;
}

// One locked run: where its data is (a bench.json, or an archive to unpack) and its lock.
struct LockedRun {
  fs::path data;  // repository-relative
  fs::path lock;  // repository-relative
  bool archived = false;
};

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

std::vector<LockedRun> committed_runs(const std::vector<std::string>& tracked) {
  std::vector<LockedRun> runs;
  for (const std::string& f : tracked) {
    const fs::path p(f);
    const auto depth = std::distance(p.begin(), p.end());
    if (depth == 4 && p.filename() == "bench.json" && *std::next(p.begin()) != "archive") {
      runs.push_back({p, p.parent_path() / kVerdictLockFile, false});
    } else if (depth == 4 && *std::next(p.begin()) == "archive" && ends_with(f, ".tar.xz")) {
      const std::string stem = p.filename().string().substr(0, p.filename().string().size() - 7);
      runs.push_back({p, p.parent_path() / (stem + ".verdict-lock.txt"), true});
    }
  }
  return runs;
}

// The analysis of today against the run's committed lock: the differing keys, or one line saying
// why the run could not be compared. Empty when they agree.
std::vector<std::string> lock_differences(const LockedRun& locked) {
  if (!fs::is_regular_file(kRoot / locked.lock)) return {"no lock " + locked.lock.string()};
  fs::path bench = kRoot / locked.data;
  std::unique_ptr<TempDir> unpacked;
  if (locked.archived) {
    unpacked = std::make_unique<TempDir>();
    const auto [out, status] =
        shell("tar -xJf " + quoted(kRoot / locked.data) + " -C " + quoted(unpacked->path()) + " 2>&1");
    if (status != 0) return {"cannot unpack " + locked.data.string() + ": " + out};
    const std::vector<fs::path> found = find_runs(unpacked->path());
    if (found.size() != 1) return {locked.data.string() + " holds " + std::to_string(found.size()) + " runs, not 1"};
    bench = found.front();
  }
  const Run run = read_run(bench);
  return verdict_lock_differences(parse_verdict_lock(slurp(kRoot / locked.lock)),
                                  verdict_counts(evaluate_run(run)));
}

std::string report(const LockedRun& run, const std::vector<std::string>& differences) {
  std::string text = run.data.string() + " no longer gives the verdicts of its lock " + run.lock.string() + ":\n";
  for (const auto& d : differences) text += "  " + d + "\n";
  return text +
         "A rule change that moves verdicts of a committed run updates its lock in the same commit "
         "(scripts/update-verdict-locks.sh) and lists what moved, before -> after, in "
         "docs/verdict-changes.md.";
}

TEST(VerdictLock, EveryCommittedAndArchivedRunGivesTheVerdictsOfItsLock) {
  std::string why;
  const std::vector<std::string> tracked = tracked_results(why);
  if (!why.empty()) GTEST_SKIP() << why;
  const std::vector<LockedRun> runs = committed_runs(tracked);
  ASSERT_FALSE(runs.empty()) << "git tracks no run under results/";
  std::size_t current = 0;
  for (const auto& run : runs) {
    current += !run.archived;
    // The lock must be committed too, not only lie in the working tree.
    const bool lock_tracked = std::find(tracked.begin(), tracked.end(), run.lock.generic_string()) != tracked.end();
    EXPECT_TRUE(lock_tracked) << run.lock << " is not tracked by git (scripts/update-verdict-locks.sh writes it; commit it)";
    const std::vector<std::string> d = lock_differences(run);
    EXPECT_TRUE(d.empty()) << report(run, d);
  }
  EXPECT_GE(current, 1u);
}

// Negative control: the same comparison with one tolerance changed (the if/else slowdowns' 2 %
// made 1 %, in the evaluators' copy of the rules this test alone may set) must find the committed
// run's divergence verdicts moved.
TEST(VerdictLock, OneChangedToleranceBreaksTheLock) {
  std::string why;
  const std::vector<std::string> tracked = tracked_results(why);
  if (!why.empty()) GTEST_SKIP() << why;
  const LockedRun* current = nullptr;
  const std::vector<LockedRun> runs = committed_runs(tracked);
  for (const auto& run : runs) {
    if (!run.archived) current = &run;
  }
  ASSERT_NE(current, nullptr) << "no committed current run";
  ASSERT_TRUE(lock_differences(*current).empty()) << "the lock must hold before the change";
  std::vector<std::string> d;
  {
    const ScopedSplitTolerance changed(kSplitTolerance / 2);
    d = lock_differences(*current);
  }
  ASSERT_FALSE(d.empty()) << "a tolerance halved moved no verdict: the lock test could not fail";
  bool divergence = false;
  for (const auto& line : d) divergence = divergence || line.rfind("divergence ", 0) == 0;
  EXPECT_TRUE(divergence) << d.front();
  EXPECT_NE(report(*current, d).find("docs/verdict-changes.md"), std::string::npos);
  EXPECT_TRUE(lock_differences(*current).empty()) << "the tolerance is back";
}

TEST(VerdictLock, TheTextIsSortedStableAndReadsBack) {
  std::vector<Row> rows(3);
  rows[0].family = "b";
  rows[0].metric = "m";
  rows[0].kind = kind::kModel;
  rows[0].verdict = verdict::kUntestable;
  rows[1] = rows[0];
  rows[2].family = "a";
  rows[2].metric = "z";
  rows[2].kind = kind::kCheck;
  rows[2].verdict = verdict::kPasses;
  const std::string text = verdict_lock_text("run-1", rows);
  // Written out by hand: the comment lines, then "a" before "b", the two untestable rows counted once.
  EXPECT_EQ(text.substr(text.find("# family")),
            "# family\tmetric\tkind\tverdict\trows\n"
            "a\tz\tcheck\tpasses\t1\n"
            "b\tm\tmodel\tuntestable here\t2\n");
  EXPECT_NE(text.find("run-1"), std::string::npos);
  EXPECT_EQ(parse_verdict_lock(text), verdict_counts(rows));
  std::swap(rows[0], rows[2]);
  EXPECT_EQ(verdict_lock_text("run-1", rows), text) << "the order of the rows does not matter";
  EXPECT_THROW(parse_verdict_lock("a\tz\tcheck\tpasses\n"), std::runtime_error);
  EXPECT_THROW(parse_verdict_lock("a\tz\tcheck\tpasses\tmany\n"), std::runtime_error);
  const auto moved = verdict_lock_differences(parse_verdict_lock("a\tz\tcheck\tpasses\t1\n"),
                                              parse_verdict_lock("a\tz\tcheck\tfails\t1\n"));
  ASSERT_EQ(moved.size(), 2u);
  EXPECT_EQ(moved[0], "a z check 'fails': lock 0, now 1");
  EXPECT_EQ(moved[1], "a z check 'passes': lock 1, now 0");
}

}  // namespace
}  // namespace warpcost::analysis
