//! Host overhead per move: plays random-vs-random games through the referee,
//! then replays the very same moves straight through the plugin API (legal
//! moves, move text, apply, status: the plugin's own work), and reports the
//! difference per move. Run with `cargo run --release --example referee_overhead [VARIANT] [GAMES]`.

use std::time::Instant;

use arbiter::clock::TimeControl;
use arbiter::players::PlayerSpec;
use arbiter::plugin::{Registry, SearchPath};
use arbiter::referee::{play_game, GameConfig, StartFrom};
use arbiter_api::host::MoveBuf;
use arbiter_api::Viewer;
use serde_json::Map;

fn main() {
    let mut args = std::env::args().skip(1);
    let variant_id = args.next().unwrap_or_else(|| "chess".into());
    let games: u64 = args.next().and_then(|g| g.parse().ok()).unwrap_or(200);
    // Examples live in target/<profile>/examples: the plugins are one level up.
    let exe = std::env::current_exe().unwrap();
    let profile_dir = exe.parent().and_then(|d| d.parent()).unwrap().to_path_buf();
    let registry = Registry::load(&SearchPath::resolve(&[profile_dir]));
    let variant = registry.get(&variant_id).expect("variant installed");
    let config = GameConfig {
        time_controls: vec![TimeControl::parse("inf").unwrap(); 2],
        margin_ms: 0,
        max_plies: None,
        claim_draws: true,
        adjudication: Default::default(),
        pin_seats: false,
    };
    let mut records = Vec::new();
    let t0 = Instant::now();
    for seed in 0..games {
        let mut players = [seed, seed + 7].map(|s| PlayerSpec::parse(&format!("random:seed={s}")).unwrap().create(0));
        records.push(play_game(variant, &Map::new(), StartFrom::Standard, &mut players, &config).unwrap());
    }
    let refereed = t0.elapsed();
    let plies: usize = records.iter().map(|r| r.plies.len()).sum();
    // The plugin's own work for the same moves: what any host must ask for.
    let t1 = Instant::now();
    let mut buf = MoveBuf::new();
    for r in &records {
        let mut game = variant.new_game(&Map::new()).unwrap();
        for p in &r.plies {
            let _ = game.status();
            game.legal_moves(&mut buf).unwrap();
            for q in 0..2 {
                let _ = game.move_text(p.mv, Viewer::Player(q)).unwrap();
            }
            let _ = game.move_text(p.mv, Viewer::Referee).unwrap();
            game.apply(p.mv).unwrap();
        }
        let _ = game.status();
    }
    let direct = t1.elapsed();
    let per = |d: std::time::Duration| d.as_secs_f64() * 1e6 / plies as f64;
    println!("{variant_id}: {games} games, {plies} moves");
    println!("refereed:       {:.2} us/move", per(refereed));
    println!("plugin work:    {:.2} us/move", per(direct));
    println!("host overhead:  {:.2} us/move", per(refereed) - per(direct));
}
