// Benchmark driver for Christophe Steininger's Connect 4 solver (github:ChristopheSteininger/c4).
//
// Reads move strings on stdin, one per line (1-based columns, Pons' notation, columns after 9
// written a, b, c ... as connect4 writes them; an empty line is the empty board; anything after
// the first space is ignored). For each position: the table
// is cleared (outside the timed region), the position is solved strongly, and the driver prints
//     moves score nodes microseconds
// with the score in Pons' convention (the side to move's view; c4 uses the same one).
//
// Board size, threads and table size are compiled in (c4's src/solver/settings.h);
// build_c4.sh builds one driver per choice. `c4bench --config` prints the compiled choice.
#include <chrono>
#include <iomanip>
#include <iostream>
#include <string>

#include "solver/position.h"
#include "solver/settings.h"
#include "solver/solver.h"

// Plays `moves` on `pos`; on a bad move, writes the reason to `error` and returns false.
static bool play(const std::string &moves, Position &pos, std::string &error) {
    for (std::size_t i = 0; i < moves.size(); i++) {
        std::string where = "move " + std::to_string(i + 1) + " ('" + moves[i] + "'): ";
        char symbol = moves[i];
        int col = symbol >= 'a' && symbol <= 'z' ? symbol - 'a' + 9
                  : symbol >= 'A' && symbol <= 'Z' ? symbol - 'A' + 9
                                                   : symbol - '1';
        if (col < 0 || col >= BOARD_WIDTH || (symbol > '9' && symbol < 'A')) {
            error = where + "not a column from 1 to " + std::to_string(BOARD_WIDTH);
            return false;
        }
        if (pos.is_game_over()) {
            error = where + "the game is already over";
            return false;
        }
        if (!pos.is_move_valid(col)) {
            error = where + "column " + moves[i] + " is full";
            return false;
        }
        pos.move(col);
    }
    return true;
}

int main(int argc, char **argv) {
    if (argc > 1) {
        if (std::string(argv[1]) == "--config" && argc == 2) {
            std::cout << BOARD_WIDTH << "x" << BOARD_HEIGHT << " threads=" << NUM_THREADS
                      << " table_entries=" << NUM_TABLE_ENTRIES << std::endl;
            return 0;
        }
        std::cerr << "usage: " << argv[0] << " [--config] < move strings" << std::endl;
        return 2;
    }
    Solver solver{};
    std::cout << std::fixed << std::setprecision(1);
    std::string line;
    for (int number = 1; std::getline(std::cin, line); number++) {
        std::string moves = line.substr(0, line.find(' '));
        if (!moves.empty() && moves.back() == '\r') {
            moves.pop_back();
        }
        Position pos{};
        std::string error;
        if (!play(moves, pos, error)) {
            std::cerr << "line " << number << ": " << error << std::endl;
            return 1;
        }
        solver.clear_state();
        auto start = std::chrono::steady_clock::now();
        int score = solver.solve_strong(pos);
        auto end = std::chrono::steady_clock::now();
        double micros = std::chrono::duration<double, std::micro>(end - start).count();
        std::cout << moves << " " << score << " " << solver.get_merged_stats().get_num_nodes() << " "
                  << micros << std::endl;
    }
    return 0;
}
