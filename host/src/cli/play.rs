//! `arbiter play`: a quick game between two seeded random players, printed
//! move by move with the final position and the result.

use anyhow::Result;
use clap::Args;

use super::OptionArgs;
use crate::players::{Player, RandomPlayer};
use crate::plugin::Registry;
use crate::referee;
use crate::{Outcome, Viewer};

/// Arguments of `arbiter play`.
#[derive(Args, Debug)]
pub struct PlayArgs {
    /// Variant id.
    variant: String,
    /// Seed for the random players (the same seed replays the same game).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Start from this position (the variant's position notation).
    #[arg(long)]
    position: Option<String>,
    /// Stop after this many plies.
    #[arg(long)]
    max_plies: Option<u32>,
    #[command(flatten)]
    options: OptionArgs,
}

pub(super) fn run(registry: &Registry, args: &PlayArgs) -> Result<()> {
    let variant = registry.get(&args.variant)?;
    let options = args.options.to_map()?;
    let game = match &args.position {
        Some(text) => variant.from_position(text, &options)?,
        None => variant.new_game(&options)?,
    };
    let seats = variant.info().players.len() as u64;
    let mut players: Vec<Box<dyn Player>> = (0..seats)
        .map(|i| Box::new(RandomPlayer::new(args.seed.wrapping_mul(seats).wrapping_add(i))) as Box<dyn Player>)
        .collect();
    let record = referee::play(game, &mut players, args.max_plies)?;
    let names = &variant.info().players;
    for (i, ply) in record.plies.iter().enumerate() {
        let who = names.get(ply.player as usize).map(String::as_str).unwrap_or("?");
        println!("{:>4}. {:<6} {}", i + 1, who, ply.text);
    }
    println!();
    print!("{}", record.final_game.observe(Viewer::Spectator)?.text);
    let result = match record.status.outcome {
        Outcome::Win(p) => format!("{} wins", names.get(p as usize).map(String::as_str).unwrap_or("?")),
        Outcome::Draw => "draw".to_string(),
        Outcome::Ongoing => "unfinished (ply limit)".to_string(),
        Outcome::Faulted => "plugin faulted".to_string(),
    };
    let reason = if record.status.reason.is_empty() { String::new() } else { format!(" by {}", record.status.reason) };
    println!("Result: {result}{reason} after {} plies", record.plies.len());
    Ok(())
}
