// What the MPI commands (dunesim, dunesim_surface) share at their start: MPI_Init, the
// command line parsed on every rank with one message, and the validators of numbers that
// CLI11 alone would let through.
#pragma once
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <charconv>
#include <cmath>
#include <optional>
#include <string>

namespace dunesim {

// A bad command line: fix the input (the status of a bad case file too).
constexpr int kExitUsage = 2;

// MPI_Init, then `app` parses the command line on every rank. Returns nothing when the
// command goes on; else MPI is finalised and the status to end with is returned on every rank:
// 0 after --help, kExitUsage after rank 0 printed what is wrong.
inline std::optional<int> start_mpi_command(CLI::App& app, int& argc, char**& argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  try {
    app.parse(argc, argv);
    return std::nullopt;
  } catch (const CLI::ParseError& e) {
    const int status = rank == 0 ? app.exit(e) : e.get_exit_code();
    MPI_Finalize();
    return status == 0 ? 0 : kExitUsage;
  }
}

// A validator of a finite number > 0 (CLI11's PositiveNumber lets nan through); `expected`
// says what in the message, e.g. "a finite number of seconds > 0".
inline CLI::Validator positive_finite_number(const std::string& expected,
                                             const std::string& name) {
  return CLI::Validator(
      [expected](std::string& text) {
        double value = 0;
        const char* end = text.data() + text.size();
        const auto [stop, error] = std::from_chars(text.data(), end, value);
        if (error != std::errc() || stop != end || !std::isfinite(value) || value <= 0)
          return "expected " + expected + ", got " + text;
        return std::string();
      },
      name);
}

}  // namespace dunesim
