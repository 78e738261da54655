// warpcost-examples: a course author's worked examples against the models (docs/worked-examples.md).
//   warpcost-examples check FILE                 every stated answer vs the model; exit 0 all agree,
//                                                1 any disagrees, 2 malformed file or usage
//   warpcost-examples predict KIND key=value ... [--results DIR] [--gpu NAME]
//                                                the model's answers, and the measured value of the
//                                                newest run of the GPU under DIR (default results)
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "analysis/examples/examples.hpp"
#include "analysis/examples/measured.hpp"

namespace {

namespace ex = warpcost::examples;

const char* const kUsage =
    "usage: warpcost check FILE\n"
    "       warpcost predict KIND key=value ... [--results DIR] [--gpu NAME]\n"
    "  KIND: block_shape, thread_map, grid_tail, divergence, latency_hiding, scheduler_demand,\n"
    "        coalescing, warp_primitive (docs/worked-examples.md lists each kind's keys)\n";

int usage(const std::string& problem) {
  std::fprintf(stderr, "warpcost: %s\n%s", problem.c_str(), kUsage);
  return ex::kExitMalformed;
}

// The name nvidia-smi gives the first GPU, or "" where none is visible.
std::string visible_gpu() {
  FILE* p = popen("nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null", "r");
  if (p == nullptr) return "";
  char buf[256] = {0};
  std::string name;
  if (std::fgets(buf, sizeof buf, p) != nullptr) name = buf;
  pclose(p);
  while (!name.empty() && (name.back() == '\n' || name.back() == '\r' || name.back() == ' ')) name.pop_back();
  return name;
}

int check(const std::vector<std::string>& args) {
  if (args.size() != 1) return usage("check takes one FILE");
  if (args[0] == "--measure") return usage("--measure comes after FILE");
  const auto examples = ex::read_examples_file(args[0]);
  const auto checked = ex::check_examples(examples);
  std::cout << ex::check_markdown(checked);
  for (const auto& c : checked) {
    if (!c.agrees) return ex::kExitDisagree;
  }
  return ex::kExitAgree;
}

int predict(const std::vector<std::string>& args) {
  if (args.empty()) return usage("predict needs a KIND");
  std::string results = "results";
  std::string gpu;
  std::vector<std::string> key_values;
  for (std::size_t i = 1; i < args.size(); ++i) {
    if (args[i] == "--results" || args[i] == "--gpu") {
      if (i + 1 >= args.size()) return usage(args[i] + " needs a value");
      (args[i] == "--results" ? results : gpu) = args[i + 1];
      ++i;
    } else {
      key_values.push_back(args[i]);
    }
  }
  const ex::Example example = ex::example_from_arguments(args[0], key_values);
  const auto answers = ex::model_answers(example);
  std::cout << "model (" << example.kind << "):\n";
  for (const auto& a : answers) {
    std::cout << "  " << a.field << " = " << ex::render(a.value) << "    " << a.formula << "\n";
  }
  if (gpu.empty()) gpu = visible_gpu();
  if (gpu.empty()) {
    std::cout << "measured: no GPU is visible here (nvidia-smi finds none); --gpu NAME reads the runs of a "
                 "GPU under "
              << results << "/ (its folder, e.g. nvidia-h200)\n";
    return 0;
  }
  std::string why;
  const auto measured = ex::measured_values(example, results, gpu, why);
  if (measured.empty()) {
    std::cout << "measured: none (" << why << ")\n";
    return 0;
  }
  std::cout << "measured (run " << measured.front().run_id << "):\n";
  for (const auto& m : measured) {
    std::cout << "  " << m.answer << " = " << m.value << " " << m.unit << "    " << m.row << ", the family's verdict: "
              << m.verdict << (m.note.empty() ? "" : "; " + m.note) << "\n";
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) return usage("name a command: check or predict");
  const std::string command = args.front();
  args.erase(args.begin());
  try {
    if (command == "check") return check(args);
    if (command == "predict") return predict(args);
    if (command == "--help" || command == "-h") {
      std::printf("%s", kUsage);
      return 0;
    }
    return usage("unknown command '" + command + "'; allowed: check, predict");
  } catch (const ex::BadInput& e) {
    std::fprintf(stderr, "warpcost: %s\n", e.what());
    return ex::kExitMalformed;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "warpcost: %s\n", e.what());
    return ex::kExitMalformed;
  }
}
