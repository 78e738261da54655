#include <iostream>
#include <string>
#include <vector>

#include "analysis/cli.hpp"

int main(int argc, char** argv) {
  return warpcost::analysis::analyze_main(std::vector<std::string>(argv + 1, argv + argc),
                                          std::cout, std::cerr);
}
