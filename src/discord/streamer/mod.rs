//! placeholder until the streamer lands
