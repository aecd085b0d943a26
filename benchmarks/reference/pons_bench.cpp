// Benchmark driver for Pascal Pons' Connect4 solver (github:PascalPons/connect4, tested at commit d6ba50d).
// Modelled on the main() of his tutorial: reads move strings on stdin, one per line;
// for each: solver.reset() (clears the 2^24-entry table, outside the timed region),
// then a timed strong solve; prints "moves score nodes microseconds".
// No opening book is loaded. An optional trailing " score" on input lines is ignored.
#include "Solver.hpp"
#include <chrono>
#include <iomanip>
#include <iostream>
#include <string>

using namespace GameSolver::Connect4;

int main() {
  Solver solver;
  std::cout << std::fixed << std::setprecision(1);
  std::string line;
  for(int l = 1; std::getline(std::cin, line); l++) {
    std::string moves = line.substr(0, line.find(' '));
    if(!moves.empty() && moves.back() == '\r') moves.pop_back();
    Position P;
    if(P.play(moves) != moves.size()) {
      std::cerr << "Line " << l << ": Invalid move " << (P.nbMoves() + 1) << " \"" << moves << "\"" << std::endl;
      return 1;
    }
    solver.reset();
    auto start = std::chrono::steady_clock::now();
    int score = solver.solve(P, false);
    auto end = std::chrono::steady_clock::now();
    double us = std::chrono::duration<double, std::micro>(end - start).count();
    std::cout << moves << " " << score << " " << solver.getNodeCount() << " " << us << "\n";
  }
  return 0;
}
