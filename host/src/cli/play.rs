//! `arbiter play`: one game between two player specs (random ones by
//! default), printed move by move with the final position and the result.

use anyhow::Result;
use clap::Args;

use super::out::{say, say_text};
use super::{GameArgs, OptionArgs};
use arbiter_api::Viewer;
use arbiter_core::clock::TimeControl;
use arbiter_core::model::seeds::seat_seed;
use arbiter_core::model::Seat;
use arbiter_core::plugin::Registry;
use arbiter_play::players::PlayerSpec;
use arbiter_play::record::redact;
use arbiter_play::referee::{play, GameSetup, SeatSetup};

/// Arguments of `arbiter play`.
#[derive(Args, Debug)]
pub struct PlayArgs {
    /// Variant id.
    variant: String,
    #[arg(long, default_value = "random", help = first_player_help())]
    p1: String,
    /// The second player.
    #[arg(long, default_value = "random")]
    p2: String,
    /// Time control (see `arbiter match --help`); default: the variant's.
    #[arg(long)]
    tc: Option<String>,
    /// Whose view the moves and the final position are shown in, once the
    /// game is over: `spectator` (the default), `referee` (everything), or a
    /// player's index (`0`).
    #[arg(long, default_value = "spectator", value_parser = parse_view)]
    view: Viewer,
    #[command(flatten)]
    game: GameArgs,
    #[command(flatten)]
    options: OptionArgs,
}

/// `--p1`'s help, naming every kind of player the registry holds.
pub(super) fn first_player_help() -> String {
    let kinds: Vec<&str> = arbiter_play::players::KINDS.iter().map(|k| k.example).collect();
    format!("The first player: a spec of any kind ({})", kinds.join(", "))
}

/// `--view`: `spectator`, `referee`, or a player's index.
fn parse_view(text: &str) -> Result<Viewer, String> {
    match text {
        "spectator" => Ok(Viewer::Spectator),
        "referee" => Ok(Viewer::Referee),
        n => n.parse().map(Viewer::Player).map_err(|_| format!("'{n}' is not spectator, referee or a player's index")),
    }
}

pub(super) fn run(registry: &Registry, args: &PlayArgs) -> Result<()> {
    let variant = registry.get(&args.variant)?;
    let info = variant.info();
    let options = args.options.to_map()?;
    let tc = TimeControl::parse(args.tc.as_deref().unwrap_or(&info.default_time_control))?;
    let specs = [PlayerSpec::parse(&args.p1)?, PlayerSpec::parse(&args.p2)?];
    for (spec, text) in specs.iter().zip([&args.p1, &args.p2]) {
        spec.check_available(text)?;
        spec.check_options(text)?;
        spec.can_play(text, info)?;
    }
    let mut players: Vec<_> =
        Seat::all(specs.len()).zip(&specs).map(|(i, s)| s.create(seat_seed(args.game.seed, i))).collect();
    let setup = GameSetup {
        variant: info.id.clone(),
        options: options.clone(),
        position: args.game.position.clone(),
        seats: [&args.p1, &args.p2]
            .into_iter()
            .map(|spec| SeatSetup { name: spec.clone(), spec: spec.clone(), tc: tc.clone() })
            .collect(),
        seed: args.game.seed,
        margin_ms: arbiter_tournament::config::DEFAULT_MARGIN_MS,
        max_plies: args.game.max_plies,
        claim_draws: true,
        adjudication: Default::default(),
        pin_seats: false,
    };
    if let Viewer::Player(p) = args.view {
        if p as usize >= info.players.len() {
            anyhow::bail!("--view {p}: {} has players 0 to {}", info.id, info.players.len() - 1);
        }
    }
    let record = play(&setup, variant, &mut players, None)?;
    // The screen shows one viewer's view (a spectator's unless asked).
    let plies = redact::plies_as_seen_by(variant, &record, args.view)?;
    for (i, ply) in plies.iter().enumerate() {
        let who = info.players.get(ply.player.index()).map(String::as_str).unwrap_or("?");
        say!("{:>4}. {:<6} {}", i + 1, who, ply.text);
    }
    say!();
    let final_game = variant.from_position(&record.final_position, &options)?;
    // An observation's text may or may not end its last line.
    let text = final_game.observe(args.view)?.text;
    say_text!("{}{}", text, if text.ends_with('\n') { "" } else { "\n" });
    say!("Result: {} after {} plies", super::out::result(&record), record.plies.len());
    if info.capabilities.hidden_information && args.view == Viewer::Spectator {
        say!("Shown as a spectator sees it: --view referee shows everything, --view 0 what {} saw.", info.players[0]);
    }
    Ok(())
}
