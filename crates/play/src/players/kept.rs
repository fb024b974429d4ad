//! Engine players kept between games, so that a match, a tournament's
//! rounds or a tune's pairs do not start an engine process for every game.

use super::{Player, PlayerSpec};

/// One kept engine: whose it is, the spec it was made or last told with,
/// and the player.
struct Kept {
    name: String,
    spec: PlayerSpec,
    player: Box<dyn Player>,
}

/// The engines kept between games, by entrant name and engine process
/// (kind, command and process settings), the least recently used dropped
/// (its process ended) past the cap. An engine asked for with other option
/// values is told them if it can take them between games (a tune's next
/// pair); otherwise it is dropped and the caller makes a new one.
pub struct KeptEngines {
    kept: Vec<Kept>,
    cap: usize,
}

impl KeptEngines {
    /// Keeps at most `cap`.
    pub fn new(cap: usize) -> KeptEngines {
        KeptEngines { kept: Vec::new(), cap }
    }

    /// Entrant `name`'s kept engine for `spec`, told `spec`'s options if
    /// they differ from the ones it has; `None` if none is kept or it
    /// cannot take them (it is then ended).
    pub fn take(&mut self, name: &str, spec: &PlayerSpec) -> Option<Box<dyn Player>> {
        let at = self.kept.iter().position(|k| k.name == name && k.spec.same_process(spec))?;
        let Kept { spec: had, mut player, .. } = self.kept.remove(at);
        (had.options() == spec.options() || player.take_options(spec.options())).then_some(player)
    }

    /// Keeps entrant `name`'s engine, playing `spec`, as the most recently used.
    pub fn keep(&mut self, name: &str, spec: &PlayerSpec, player: Box<dyn Player>) {
        self.kept.push(Kept { name: name.to_string(), spec: spec.clone(), player });
        if self.kept.len() > self.cap {
            self.kept.remove(0);
        }
    }

    /// Ends the engines of the entrants `wanted` says no to (a knockout's
    /// losers, once the run's next batch no longer has them).
    pub fn retain(&mut self, mut wanted: impl FnMut(&str) -> bool) {
        self.kept.retain(|k| wanted(&k.name));
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use super::KeptEngines;
    use crate::players::{Player, PlayerError, PlayerSpec, Reply};
    use arbiter_core::seat::Turn;

    /// The options each stand-in engine was told, by its number.
    type Told = Arc<Mutex<Vec<(u32, Vec<(String, String)>)>>>;

    /// A stand-in engine: its number, whether it takes new options, and
    /// where it notes them.
    struct Fake {
        id: u32,
        takes: bool,
        told: Told,
    }

    impl Player for Fake {
        fn name(&self) -> String {
            self.id.to_string()
        }
        fn choose(&mut self, _turn: &Turn<'_>) -> Result<Reply, PlayerError> {
            unreachable!("never asked to move")
        }
        fn take_options(&mut self, options: &[(String, String)]) -> bool {
            self.told.lock().unwrap().push((self.id, options.to_vec()));
            self.takes
        }
    }

    fn spec(text: &str) -> PlayerSpec {
        PlayerSpec::parse(text).unwrap()
    }

    #[test]
    fn a_kept_engine_is_told_new_option_values_and_another_process_is_not_it() {
        let told = Arc::new(Mutex::new(Vec::new()));
        let fake = |id, takes| Box::new(Fake { id, takes, told: told.clone() }) as Box<dyn Player>;
        let mut kept = KeptEngines::new(4);
        // A match: the same engine, the same options, game after game.
        let a = spec("uci:sf,option.A=1");
        kept.keep("a", &a, fake(1, true));
        let again = kept.take("a", &a).unwrap();
        assert_eq!(again.name(), "1");
        assert!(told.lock().unwrap().is_empty(), "nothing to tell");
        // A tune's next pair: new values, the same process.
        let a2 = spec("uci:sf,option.A=2");
        kept.keep("a", &a, again);
        assert_eq!(kept.take("a", &a2).unwrap().name(), "1");
        assert_eq!(*told.lock().unwrap(), [(1, vec![("A".to_string(), "2".to_string())])]);
        // Another entrant, another command or another process setting: not it.
        kept.keep("a", &a, fake(2, false));
        assert!(kept.take("b", &a).is_none());
        assert!(kept.take("a", &spec("uci:sf2,option.A=1")).is_none());
        assert!(kept.take("a", &spec("uci:sf,restart=on,option.A=1")).is_none());
        assert!(kept.take("a", &spec("xboard:sf,option.A=1")).is_none());
        assert_eq!(kept.kept.len(), 1, "still kept for its own");
        // An engine that cannot take new values is dropped for a new one.
        assert!(kept.take("a", &a2).is_none());
        assert!(kept.kept.is_empty());
        // Built-in players are never the same process.
        kept.keep("m", &spec("mcts"), fake(3, true));
        assert!(kept.take("m", &spec("mcts")).is_none());
        // Entrants no longer playing lose their engines.
        kept.keep("a", &a, fake(4, true));
        kept.keep("b", &a, fake(5, true));
        kept.retain(|name| name == "b");
        assert_eq!(kept.kept.len(), 1);
        assert!(kept.take("a", &a).is_none());
        assert_eq!(kept.take("b", &a).unwrap().name(), "5");
    }

    #[test]
    fn the_least_recently_used_go_past_the_cap() {
        let told = Arc::new(Mutex::new(Vec::new()));
        let mut kept = KeptEngines::new(4);
        for id in 0..10 {
            let s = spec(&format!("uci:engine{id}"));
            kept.keep(&format!("e{id}"), &s, Box::new(Fake { id, takes: false, told: told.clone() }));
        }
        assert_eq!(kept.kept.len(), 4);
        assert!(kept.take("e5", &spec("uci:engine5")).is_none(), "dropped");
        assert_eq!(kept.take("e9", &spec("uci:engine9")).unwrap().name(), "9");
        assert!(kept.take("e9", &spec("uci:engine9")).is_none(), "taken once");
    }
}
