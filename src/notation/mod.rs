//! Game records as text: position strings, the game reader and the writer.
