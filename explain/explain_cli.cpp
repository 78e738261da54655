#include "explain/explain_cli.hpp"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <regex>
#include <sstream>
#include <utility>
#include <vector>

#include "analysis/cli.hpp"
#include "core/text_format.hpp"

namespace warpcost::explain {

namespace {

// The ELF header fields a loader checks, read from the file's first 64 bytes: class, byte order,
// type and machine, and whether a program interpreter is named (an executable's PT_INTERP).
struct ElfKind {
  bool elf64_little = false;
  unsigned type = 0;
  unsigned machine = 0;
  bool has_interpreter = false;
};

std::optional<ElfKind> elf_kind(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  unsigned char h[64] = {0};
  if (!in.read(reinterpret_cast<char*>(h), sizeof h)) return std::nullopt;
  if (h[0] != 0x7f || h[1] != 'E' || h[2] != 'L' || h[3] != 'F') return std::nullopt;
  ElfKind k;
  k.elf64_little = h[4] == 2 && h[5] == 1;
  if (!k.elf64_little) return k;
  const auto u16 = [&h](int at) { return static_cast<unsigned>(h[at] | (h[at + 1] << 8)); };
  unsigned long long phoff = 0;
  for (int i = 7; i >= 0; --i) phoff = (phoff << 8) | h[32 + i];
  k.type = u16(16);
  k.machine = u16(18);
  const unsigned phentsize = u16(54), phnum = u16(56);
  for (unsigned i = 0; i < phnum && phentsize >= 4; ++i) {
    unsigned char ph[4] = {0};
    in.clear();
    in.seekg(static_cast<std::streamoff>(phoff + static_cast<unsigned long long>(i) * phentsize));
    if (!in.read(reinterpret_cast<char*>(ph), sizeof ph)) return std::nullopt;
    if ((ph[0] | (ph[1] << 8) | (ph[2] << 16) | (static_cast<unsigned>(ph[3]) << 24)) == 3u) k.has_interpreter = true;
  }
  return k;
}

// What the CUDA driver can load through CUDA_INJECTION64_PATH (dlopen): a 64-bit little-endian ELF
// shared object (ET_DYN, 3) of this tool's own machine, naming no program interpreter (a
// position-independent executable is ET_DYN too, and dlopen refuses it: the application then ran
// with no injection). Empty when it is one, else why not.
std::string why_not_a_preloadable_library(const std::filesystem::path& p) {
  const std::optional<ElfKind> k = elf_kind(p);
  if (!k) return "not an ELF file";
  if (!k->elf64_little) return "not a 64-bit little-endian ELF object";
  if (k->type != 3) return "an ELF object that is not a shared library";
  const std::optional<ElfKind> self = elf_kind("/proc/self/exe");
  if (self && self->machine != k->machine) {
    return "a shared library for another machine (ELF machine " + std::to_string(k->machine) + ", this one " +
           std::to_string(self->machine) + ")";
  }
  if (k->has_interpreter) return "an executable (it names a program interpreter), not a shared library";
  return "";
}

bool executable(const std::filesystem::path& p) {
  std::error_code ec;
  return std::filesystem::is_regular_file(p, ec) && ::access(p.c_str(), X_OK) == 0;
}

// The file an application name runs: a path as given, a bare name the first executable of that
// name on PATH (as execvp finds it); "" when none.
std::filesystem::path resolve_application(const std::string& app, const std::string& path_env) {
  if (app.empty()) return {};
  if (app.find('/') != std::string::npos) return executable(app) ? std::filesystem::path(app) : std::filesystem::path();
  std::stringstream dirs(path_env);
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    if (!dir.empty() && executable(std::filesystem::path(dir) / app)) return std::filesystem::path(dir) / app;
  }
  return {};
}

void check_output(const std::string& flag, const std::string& path) {
  if (path.empty()) throw UsageError(flag + " needs a file name");
  const std::filesystem::path parent = std::filesystem::absolute(path).parent_path();
  std::error_code ec;
  if (!std::filesystem::is_directory(parent, ec)) {
    throw UsageError(flag + " " + path + ": the folder " + parent.string() + " does not exist; allowed: a file in an existing folder");
  }
}

}  // namespace

std::string usage_text() {
  return "usage: warpcost explain [--kernel REGEX] [--launch-skip N] [--launch-count N] [--each-shape]\n"
         "                        [--no-dram-pass] [--json FILE] [--csv FILE] [--results DIR] [--inject LIB]\n"
         "                        [--records FILE] -- APP [ARGS...]\n"
         "       warpcost explain --from-records FILE [--json FILE] [--csv FILE] [--results DIR]\n"
         "       warpcost explain --proof CASES.tsv [--out FILE]\n"
         "Runs APP with warpcost's CUPTI injection library, profiles its kernel launches (a one-pass DRAM\n"
         "pass, then kernel replay), and prints per kernel, largest total time first, what warp\n"
         "and block granularity cost it in five views (partial warps, divergence, coalescing, latency\n"
         "hiding, block turnover) and all at once, each with the speedup removing it would give: one\n"
         "model of the kernel's time, fitted to it and re-solved, with this GPU's parameters from its\n"
         "newest suite run under DIR (default results/).\n"
         "  --kernel REGEX  profile only kernels whose (demangled) name matches (ECMAScript, searched)\n"
         "  --launch-skip N   pass over the first N matching launches (default 0, 0.." + std::to_string(kMaxLaunches) + ")\n"
         "  --launch-count N  profile at most N launches (default 20, 1.." + std::to_string(kMaxLaunches) + "; --launches N\n"
         "                  is the same), each in two while nothing has been replayed: its DRAM bytes on\n"
         "                  it, unreplayed (one pass), and every counter on the kernel's next launch of\n"
         "                  the same shape (kernel replay); launches chosen later are profiled in full\n"
         "                  at once\n"
         "  --each-shape    profile the first launch of each (kernel, grid, block, dynamic shared memory)\n"
         "                  shape only, so a sweep of configurations is explained one configuration each\n"
         "                  (only the first shape gets the unreplayed DRAM pass, which prices later\n"
         "                  shapes of its block; a sweep that launches each shape once needs\n"
         "                  --no-dram-pass)\n"
         "  --no-dram-pass  profile the chosen launch itself in full: for a kernel launched once (its DRAM\n"
         "                  bytes are then the replayed range's, which can count writes it did not make)\n"
         "  --json FILE     the costs as JSON;  --csv FILE  as tidy CSV rows (family explain)\n"
         "  --inject LIB    the injection library (default: libwarpcost_inject.so beside this tool)\n"
         "  --records FILE  keep the library's raw launch records (JSON lines) there\n"
         "  --from-records FILE  re-price a session's raw records (kept with --records) with this GPU's\n"
         "                  newest suite run under DIR: no application runs, no GPU is needed\n"
         "  --proof CASES   judge predicted against measured fix speedups (scripts/gpu-round-explain.sh)\n"
         "APP's own output is untouched; its exit code or signal is reported. Exit: 0 explained; 1 APP\n"
         "failed, crashed or the profiler could not run (what was collected is still reported); 2 usage.\n";
}

Options parse_options(const std::vector<std::string>& args, const std::string& path_env) {
  Options o;
  std::string count_flag;  // --launch-count or --launches, whichever was given
  std::size_t i = 0;
  std::map<std::string, std::string> given;  // each option that takes a value, once
  auto value = [&](const std::string& flag) -> std::string {
    if (i + 1 >= args.size()) throw UsageError(flag + " needs a value");
    const auto [earlier, fresh] = given.emplace(flag, args[i + 1]);
    if (!fresh) {
      throw UsageError(flag + " given twice ('" + earlier->second + "' and '" + args[i + 1] + "'); allowed: once");
    }
    return args[++i];
  };
  for (; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--") {
      o.command.assign(args.begin() + static_cast<long>(i) + 1, args.end());
      break;
    }
    if (a == "--help" || a == "-h") {
      o.help = true;
      return o;
    } else if (a == "--kernel") {
      o.kernel_regex = value(a);
      try {
        std::regex check(o.kernel_regex, std::regex::ECMAScript);
      } catch (const std::regex_error& e) {
        throw UsageError("--kernel " + o.kernel_regex + ": not a regular expression (" + e.what() +
                         "); allowed: an ECMAScript regex");
      }
    } else if (a == "--launches" || a == "--launch-count") {
      if (!count_flag.empty()) {
        throw UsageError(a + " after " + count_flag + "; allowed: one of --launch-count, --launches (the same option)");
      }
      count_flag = a;
      const std::string v = value(a);
      const std::optional<long long> n = analysis::parse_whole_integer(v);
      if (!n || *n < 1 || *n > kMaxLaunches) {
        throw UsageError(a + " " + v + "; allowed: a whole number from 1 to " + std::to_string(kMaxLaunches));
      }
      o.launches = static_cast<long>(*n);
    } else if (a == "--launch-skip") {
      const std::string v = value(a);
      const std::optional<long long> n = analysis::parse_whole_integer(v);
      if (!n || *n < 0 || *n > kMaxLaunches) {
        throw UsageError("--launch-skip " + v + "; allowed: a whole number from 0 to " + std::to_string(kMaxLaunches));
      }
      o.launch_skip = static_cast<long>(*n);
    } else if (a == "--each-shape") {
      o.each_shape = true;
    } else if (a == "--no-dram-pass") {
      o.dram_pass = false;
    } else if (a == "--json") {
      o.json_path = value(a);
      check_output(a, o.json_path);
    } else if (a == "--csv") {
      o.csv_path = value(a);
      check_output(a, o.csv_path);
    } else if (a == "--records") {
      o.records_path = value(a);
      check_output(a, o.records_path);
    } else if (a == "--results") {
      o.results_dir = value(a);
    } else if (a == "--inject") {
      o.inject_path = value(a);
      if (!std::filesystem::is_regular_file(o.inject_path)) {
        throw UsageError("--inject " + o.inject_path + ": no such file; allowed: the path of libwarpcost_inject.so");
      }
      if (const std::string why = why_not_a_preloadable_library(o.inject_path); !why.empty()) {
        throw UsageError("--inject " + o.inject_path + ": " + why + "; allowed: the path of libwarpcost_inject.so");
      }
    } else if (a == "--from-records") {
      o.from_records = value(a);
      if (!std::filesystem::is_regular_file(o.from_records)) {
        throw UsageError("--from-records " + o.from_records + ": no such file; allowed: a records file kept with --records");
      }
    } else if (a == "--proof") {
      o.proof_cases = value(a);
      if (!std::filesystem::is_regular_file(o.proof_cases)) {
        throw UsageError("--proof " + o.proof_cases + ": no such file; allowed: a cases table (docs/explain.md)");
      }
    } else if (a == "--out") {
      o.proof_out = value(a);
      check_output(a, o.proof_out);
    } else {
      throw UsageError("unknown argument '" + a + "'; allowed: --kernel, --launch-skip, --launch-count (--launches), "
                       "--each-shape, --no-dram-pass, --json, --csv, --results, "
                       "--inject, --records, --from-records, --proof, --out, --help, then -- APP [ARGS...]");
    }
  }
  // The analysis' rule for outputs: none a folder, none named twice (by any name), none an input,
  // all in folders that take a new file. explain's inputs: the records re-priced, the proof's cases,
  // the application and every argument of it that names a file, the injection library, this tool,
  // and the suite runs under --results it prices from.
  {
    std::vector<std::pair<std::filesystem::path, std::string>> outputs;
    for (const std::string* path : {&o.json_path, &o.csv_path, &o.records_path, &o.proof_out}) {
      if (!path->empty()) outputs.emplace_back(*path, "");
    }
    if (!outputs.empty()) {
      std::vector<std::filesystem::path> inputs;
      for (const std::string* path : {&o.from_records, &o.proof_cases, &o.inject_path}) {
        if (!path->empty()) inputs.emplace_back(*path);
      }
      std::error_code ec;
      if (!o.command.empty()) {
        if (const auto app = resolve_application(o.command[0], path_env); !app.empty()) inputs.push_back(app);
        for (std::size_t k = 1; k < o.command.size(); ++k) {
          if (!o.command[k].empty() && std::filesystem::exists(o.command[k], ec)) inputs.emplace_back(o.command[k]);
        }
      }
      const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
      if (!ec) {
        inputs.push_back(self);
        inputs.push_back(self.parent_path() / "libwarpcost_inject.so");
      }
      if (!o.results_dir.empty() && std::filesystem::is_directory(o.results_dir, ec)) {
        try {
          for (const auto& run : analysis::find_runs(o.results_dir)) inputs.push_back(run);
        } catch (const std::exception&) {
          // No run under it: nothing there to protect.
        }
      }
      if (const std::string problem = analysis::output_problem(outputs, inputs); !problem.empty()) throw UsageError(problem);
    }
  }
  if (!o.results_dir.empty()) {
    std::error_code ec;
    if (std::filesystem::exists(o.results_dir, ec) && !std::filesystem::is_directory(o.results_dir, ec)) {
      throw UsageError("--results " + o.results_dir + " is not a folder; allowed: the folder of suite runs (default results/)");
    }
  }
  if (!o.from_records.empty()) {
    if (!o.proof_cases.empty()) throw UsageError("--from-records re-prices one session; --proof judges cases: one at a time");
    if (!o.command.empty()) throw UsageError("--from-records re-prices saved records; it takes no -- APP");
    if (!o.dram_pass || o.launch_skip != 0 || o.each_shape || !count_flag.empty() || !o.kernel_regex.empty() ||
        !o.records_path.empty() || !o.inject_path.empty()) {
      throw UsageError("--from-records takes only --json, --csv and --results (the records were chosen when they were made)");
    }
    if (!o.proof_out.empty()) throw UsageError("--out goes with --proof");
    return o;
  }
  if (!o.proof_cases.empty()) {
    if (!o.command.empty()) throw UsageError("--proof judges recorded cases; it takes no -- APP");
    if (!o.dram_pass) throw UsageError("--no-dram-pass goes with -- APP; --proof runs none");
    if (o.launch_skip != 0 || o.each_shape || !count_flag.empty()) {
      throw UsageError("the launch selection (--launch-skip, --launch-count, --each-shape) goes with -- APP; --proof runs none");
    }
    return o;
  }
  if (!o.proof_out.empty()) throw UsageError("--out goes with --proof");
  if (o.command.empty() || o.command[0].empty()) {
    throw UsageError("no application given; allowed: -- APP [ARGS...] after the options");
  }
  const std::string& app = o.command[0];
  if (resolve_application(app, path_env).empty()) {
    if (app.find('/') != std::string::npos) throw UsageError("application " + app + " is not an executable file");
    throw UsageError("application " + app + " is not on PATH; allowed: a path or a command on PATH");
  }
  return o;
}

}  // namespace warpcost::explain
