//! What an uploaded record proves of its result, beyond its moves: the
//! coordinator's policy for results a single remote worker could invent.
//!
//! | the game ended by | proved by | from a remote worker |
//! |---|---|---|
//! | the rules (mate, a claimable draw claimed, the plugin's adjudication, the ply limit, the game-time cap) | the replay | counts |
//! | a score adjudication | the recorded scores, judged again by the job's rule | counts |
//! | an engine's loss on time | the recorded clocks (its flag could fall there) | counts |
//! | a resignation, an agreed draw, an engine's crash, hang, protocol error or illegal move, a built-in player's loss on time, a plugin's fault | the worker's word | waits: counts once a second worker's game of the same job ends alike, or the operator accepts it |
//! | what the players named cannot do (a built-in player resigning, crashing, playing an illegal move, agreeing a draw, reporting a search it never made; a flag without a clock) | nothing | refused as forged |
//!
//! Built-in players (`random`, `mcts`) play only legal moves, never resign,
//! never offer or accept draws and have no process to crash; `random`
//! reports no score and neither reports depth, nodes or a principal
//! variation.

use arbiter_api::Outcome;

use arbiter_core::clock::Limit;
use arbiter_core::model::{GameRecord, Seat};
use arbiter_play::players::PlayerSpec;
use arbiter_play::referee::SeatSetup;
use arbiter_play::referee::Termination;
use arbiter_tournament::worker::Job;

/// What a record proves of its result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Proof {
    /// The rules, or what the record shows (scores, clocks), give it.
    Proved,
    /// It rests on the worker's word (what: "a resignation"...).
    Unproven(String),
    /// The players named cannot end a game so: why.
    Impossible(String),
}

/// The seat's player, if it is a built-in one (`random`, `mcts`).
fn built_in(seat: &SeatSetup) -> Option<PlayerSpec> {
    PlayerSpec::parse(&seat.spec).ok().filter(PlayerSpec::is_built_in)
}

/// What `record`, a game of `job`, proves of its result.
pub fn proof(job: &Job, record: &GameRecord) -> Proof {
    let seat = |s: Seat| job.setup.seats.get(s.index());
    let name = |s: Seat| seat(s).map_or_else(|| format!("player {s}"), |j| j.name.clone());
    // Searches a built-in player never reports.
    for (i, ply) in record.plies.iter().enumerate() {
        let Some(spec) = seat(ply.player).and_then(built_in) else { continue };
        let searched = ply.depth.is_some() || ply.nodes.is_some() || ply.seldepth.is_some() || ply.pv.is_some();
        if searched || (!spec.reports_score() && ply.score.is_some()) {
            return Proof::Impossible(format!(
                "{} is a built-in {} player, which reports no such search as its move at ply {} carries",
                name(ply.player),
                spec.kind(),
                i + 1
            ));
        }
    }
    // The seat a loss or fault is charged to: the winner's opponent, or the
    // player to move when the game ended.
    let to_move = record.plies.last().map_or(Seat::FIRST, |p| p.player.opponent());
    let faulted = Seat::winner(record.result.outcome).map_or(to_move, Seat::opponent);
    let built_in_at_fault = seat(faulted).and_then(built_in).map(|spec| spec.kind());
    let any_built_in = job.setup.seats.iter().find_map(|s| built_in(s).map(|spec| (s.name.clone(), spec.kind())));
    let impossible = |what: &str| {
        Proof::Impossible(format!(
            "{} is a built-in {} player: it never {what}",
            name(faulted),
            built_in_at_fault.unwrap_or("")
        ))
    };
    use Termination::*;
    match &record.result.termination {
        Rules(_) | DrawClaimed(_) | Adjudication(_) => Proof::Proved,
        Resignation if built_in_at_fault.is_some() => impossible("resigns"),
        Resignation => Proof::Unproven("a resignation".into()),
        DrawAgreed => match any_built_in {
            Some((who, kind)) => {
                Proof::Impossible(format!("{who} is a built-in {kind} player: it never offers or accepts a draw"))
            }
            None => Proof::Unproven("an agreed draw".into()),
        },
        IllegalMove(_) if built_in_at_fault.is_some() => impossible("plays an illegal move"),
        EngineCrashed(_) | EngineProtocol(_) | EngineHung(_) if built_in_at_fault.is_some() => {
            impossible("crashes, hangs or breaks a protocol (it has no process)")
        }
        IllegalMove(_) => Proof::Unproven("an illegal move".into()),
        EngineCrashed(_) => Proof::Unproven("an engine's crash".into()),
        EngineProtocol(_) => Proof::Unproven("an engine's protocol error".into()),
        EngineHung(_) => Proof::Unproven("an engine's hang".into()),
        TimeForfeit(_) | TimeForfeitInsufficientMaterial => {
            match seat(faulted) {
                Some(s) if matches!(s.tc.limit, Limit::Infinite) => {
                    Proof::Impossible(format!("{} lost on time without a clock", name(faulted)))
                }
                // A built-in player answers within its budget on any
                // machine that is not stalled: a second game must agree.
                Some(_) if built_in_at_fault.is_some() => Proof::Unproven("a built-in player's loss on time".into()),
                _ => Proof::Proved,
            }
        }
        PluginCrashed(_) | PluginHung(_) | PluginContract(_) => Proof::Unproven("a plugin's fault".into()),
        Unterminated(_) => Proof::Unproven("a game stopped before its end".into()),
    }
}

/// Whether two records of one job end alike: the same outcome, the same
/// kind of ending.
pub fn agree(a: &GameRecord, b: &GameRecord) -> bool {
    let outcome = |r: &GameRecord| match r.result.outcome {
        Outcome::Win(w) => Some(w),
        Outcome::Draw => Some(u32::MAX),
        _ => None,
    };
    outcome(a) == outcome(b) && a.result.termination.kind() == b.result.termination.kind()
}

#[cfg(test)]
mod tests {
    use arbiter_api::Outcome;

    use super::{agree, proof, Proof};
    use arbiter_core::clock::TimeControl;
    use arbiter_core::model::{GameRecord, Seat};
    use arbiter_play::referee::{SeatSetup, Termination};
    use arbiter_tournament::worker::Job;

    fn job(seats: [(&str, &str, &str); 2]) -> Job {
        let mut job: Job = serde_json::from_value(serde_json::json!({
            "variant": "race", "options": {}, "position": null, "seats": [], "seed": 1, "margin_ms": 0,
            "max_plies": null, "claim_draws": false, "grace_ms": 0, "live": false, "journal": null,
        }))
        .unwrap();
        job.setup.seats = seats
            .iter()
            .map(|(name, spec, tc)| SeatSetup {
                name: name.to_string(),
                spec: spec.to_string(),
                tc: TimeControl::parse(tc).unwrap(),
            })
            .collect();
        job
    }

    /// A game of three plies that ended `termination`, `winner` winning.
    fn ended(termination: Termination, winner: Option<u32>) -> GameRecord {
        let mut r = arbiter_testing::record(&[0, 1, 0]);
        for ply in &mut r.plies {
            (ply.score, ply.depth, ply.nodes, ply.seldepth, ply.pv) = (None, None, None, None, None);
        }
        r.result.outcome = winner.map_or(Outcome::Draw, Outcome::Win);
        r.result.termination = termination;
        r
    }

    #[test]
    fn built_in_players_never_resign_crash_or_agree_draws_and_engines_wait_for_a_second_game() {
        let built_in = job([("r", "random", "inf"), ("m", "mcts:iterations=50", "inf")]);
        let engines = job([("a", "uci:stockfish", "inf"), ("b", "uci:stockfish", "inf")]);
        let cases = [
            (Termination::Resignation, Some(0)),
            (Termination::DrawAgreed, None),
            (Termination::EngineCrashed("gone".into()), Some(0)),
            (Termination::EngineHung("silent".into()), Some(0)),
            (Termination::IllegalMove("e9e10".into()), Some(0)),
        ];
        for (termination, winner) in cases {
            let r = ended(termination.clone(), winner);
            assert!(
                matches!(proof(&built_in, &r), Proof::Impossible(_)),
                "{termination:?}: {:?}",
                proof(&built_in, &r)
            );
            assert!(matches!(proof(&engines, &r), Proof::Unproven(_)), "{termination:?}");
        }
        let why = match proof(&built_in, &ended(Termination::Resignation, Some(0))) {
            Proof::Impossible(why) => why,
            p => panic!("{p:?}"),
        };
        assert_eq!(why, "m is a built-in mcts player: it never resigns");
        for (termination, winner) in
            [(Termination::Rules("reached ten".into()), Some(1)), (Termination::Adjudication("ply limit".into()), None)]
        {
            assert_eq!(proof(&built_in, &ended(termination, winner)), Proof::Proved);
        }
    }

    #[test]
    fn a_loss_on_time_needs_a_clock_and_a_built_in_player_s_waits_for_a_second_game() {
        let untimed = job([("a", "uci:sf", "inf"), ("b", "uci:sf", "inf")]);
        let timed = job([("a", "uci:sf", "10+0.1"), ("b", "random", "10+0.1")]);
        let flag = |winner| ended(Termination::TimeForfeit(Some(5)), Some(winner));
        assert!(matches!(proof(&untimed, &flag(0)), Proof::Impossible(why) if why.contains("without a clock")));
        assert_eq!(proof(&timed, &flag(1)), Proof::Proved, "an engine's flag, its clocks checked apart");
        assert!(matches!(proof(&timed, &flag(0)), Proof::Unproven(_)), "the random player's flag");
    }

    #[test]
    fn a_built_in_player_reports_no_search() {
        let built_in = job([("r", "random", "inf"), ("m", "mcts", "inf")]);
        let mut r = ended(Termination::Rules("reached ten".into()), Some(0));
        r.plies[1].score = Some(30);
        assert_eq!(proof(&built_in, &r), Proof::Proved, "mcts reports a score");
        r.plies[0].score = Some(30);
        assert!(matches!(proof(&built_in, &r), Proof::Impossible(why) if why.contains("ply 1")));
        r.plies[0].score = None;
        r.plies[1].depth = Some(12);
        assert!(matches!(proof(&built_in, &r), Proof::Impossible(why) if why.contains("ply 2")));
        assert_eq!(r.plies[1].player, Seat::SECOND);
    }

    #[test]
    fn two_games_agree_on_their_outcome_and_kind_of_ending() {
        let resigned = ended(Termination::Resignation, Some(0));
        assert!(agree(&resigned, &ended(Termination::Resignation, Some(0))));
        assert!(!agree(&resigned, &ended(Termination::Resignation, Some(1))));
        assert!(!agree(&resigned, &ended(Termination::EngineCrashed("x".into()), Some(0))));
    }
}
