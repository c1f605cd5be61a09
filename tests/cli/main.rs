//! The `kabir` binary's tests: every command run as a user runs it, on real files, with its
//! output, exit status and the files it leaves; the web server's pages and API (with the
//! `serve` feature); and the workspace's dependency graph.

mod bad_input;
mod broken_pipe;
mod cli;
mod cli_common;
mod diagram_board;
mod diagram_chart;
mod engine_records;
mod failure_messages;
mod import;
mod import_bad_database;
mod input_formats;
mod library_import;
mod opening_suites;
mod output_files;
mod parquet_export;
mod perft;
mod queries_common;
mod queries_explore;
mod queries_search;
mod queries_show;
mod queries_stats;
mod real_world;
mod serve_browser;
mod serve_http;
mod structure;
mod validate;
mod variant_file;
