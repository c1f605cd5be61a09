//! The rules core's tests (`crates/kabir-rules`): the pieces and special rules of each variant
//! as RULES.md decides them, position strings, hashing, perft counts, and move generation
//! against a slow oracle and against Fairy-Stockfish's recorded answers.

mod differential_pyffish;
mod movegen_oracle;
mod movegen_shortcuts;
mod oracle;
mod rules_common;
mod rules_fen;
mod rules_grand_shatranj;
mod rules_greenwood;
mod rules_hash;
mod rules_perft;
mod rules_pieces;
mod rules_shatranj;
mod rules_tamerlane;
mod slow_movegen;
mod zobrist;
