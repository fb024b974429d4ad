//! The PostgreSQL schema's versioned migrations: each runs once, in one
//! transaction with the row that records it in `refinery_schema_history`.
//! That table, its columns and its checksums are the refinery crate's,
//! which migrated the stores of earlier releases: those stores open here
//! unchanged, and earlier releases still open a store brought up to date
//! here.

use std::hash::{Hash, Hasher};
use std::time::{SystemTime, UNIX_EPOCH};

use postgres::Client;
use siphasher::sip::SipHasher13;

use super::one_line;
use crate::StoreFailure;
use arbiter_core::model::calendar;

/// One step of the schema: version `version`, named `V{version}__{name}`.
pub(super) struct Migration {
    version: i32,
    name: &'static str,
    sql: &'static str,
}

impl Migration {
    /// The step numbered `version`, called `name`, running `sql`.
    pub(super) const fn new(version: i32, name: &'static str, sql: &'static str) -> Migration {
        Migration { version, name, sql }
    }

    /// refinery's checksum: SipHash-1-3 over the name, the version and the
    /// SQL, hashed as Rust hashes a `str` and an `i32`.
    fn checksum(&self) -> u64 {
        let mut hasher = SipHasher13::new();
        self.name.hash(&mut hasher);
        self.version.hash(&mut hasher);
        self.sql.hash(&mut hasher);
        hasher.finish()
    }

    /// `V{version}__{name}`, as messages name it.
    fn label(&self) -> String {
        format!("V{}__{}", self.version, self.name)
    }
}

/// A migration the store records as run.
#[derive(Debug)]
struct Applied {
    version: i32,
    name: String,
    checksum: String,
}

/// The history table, as refinery makes it.
const HISTORY_TABLE: &str = "CREATE TABLE IF NOT EXISTS refinery_schema_history (
    version INT4 PRIMARY KEY,
    name VARCHAR(255),
    applied_on VARCHAR(255),
    checksum VARCHAR(255))";

/// Runs each of `ours` (in order) that the store behind `client` has not
/// run yet. The caller holds a lock that keeps other processes from
/// migrating the same store at once.
pub(super) fn migrate(client: &mut Client, ours: &[Migration]) -> Result<(), StoreFailure> {
    client.batch_execute(HISTORY_TABLE)?;
    let applied = client
        .query("SELECT version, name, checksum FROM refinery_schema_history ORDER BY version", &[])?
        .iter()
        .map(|row| Applied {
            version: row.get(0),
            name: row.get::<_, Option<String>>(1).unwrap_or_default(),
            checksum: row.get::<_, Option<String>>(2).unwrap_or_default(),
        })
        .collect::<Vec<_>>();
    for step in pending(ours, &applied).map_err(StoreFailure::Schema)? {
        let failed = |e: postgres::Error| StoreFailure::Schema(format!("migration {}: {}", step.label(), one_line(&e)));
        let mut tx = client.transaction().map_err(failed)?;
        tx.batch_execute(step.sql).map_err(failed)?;
        tx.execute(
            "INSERT INTO refinery_schema_history (version, name, applied_on, checksum) VALUES ($1, $2, $3, $4)",
            &[&step.version, &step.name, &rfc3339_now(), &step.checksum().to_string()],
        )
        .map_err(failed)?;
        tx.commit().map_err(failed)?;
    }
    Ok(())
}

/// The steps of `ours` that a store which ran `applied` still needs, or
/// why this build and the store disagree: a step the store ran that this
/// build does not have (a newer arbiter made the store), one that differs
/// from this build's, or one skipped below the store's latest.
fn pending<'m>(ours: &'m [Migration], applied: &[Applied]) -> Result<Vec<&'m Migration>, String> {
    for ran in applied {
        let label = format!("V{}__{}", ran.version, ran.name);
        let refused = match ours.iter().find(|m| m.version == ran.version) {
            None => {
                format!("the store ran migration {label}, which this arbiter does not have (a newer arbiter made it)")
            }
            Some(m) if m.name != ran.name || m.checksum().to_string() != ran.checksum => {
                format!("the store's migration {label} differs from this arbiter's {}", m.label())
            }
            Some(_) => continue,
        };
        return Err(refused);
    }
    let latest = applied.iter().map(|a| a.version).max();
    let mut left = Vec::new();
    for m in ours.iter().filter(|m| !applied.iter().any(|a| a.version == m.version)) {
        if latest.is_some_and(|latest| m.version < latest) {
            return Err(format!("the store skipped migration {} yet ran a later one", m.label()));
        }
        left.push(m);
    }
    Ok(left)
}

/// Now in UTC as RFC 3339 (`2026-12-04T09:30:00Z`), as refinery writes
/// `applied_on` (and parses it again).
fn rfc3339_now() -> String {
    let secs = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let of_day = secs % 86_400;
    format!("{}T{:02}:{:02}:{:02}Z", calendar::date(secs, '-'), of_day / 3600, of_day / 60 % 60, of_day % 60)
}

#[cfg(test)]
mod tests {
    use super::{pending, Applied};
    use crate::postgres::MIGRATIONS;

    /// The checksums refinery 0.8 computed for this schema (and wrote into
    /// every store made before this module replaced it).
    const REFINERY: [(i32, &str, u64); 9] = [
        (1, "initial", 4166740653918075268),
        (2, "tallies", 4057059448251882688),
        (3, "games_by_tournament", 2635628430616531039),
        (4, "open_queue_in_index_order", 13489064058008829135),
        (5, "lz4_game_texts", 12795630466239750272),
        (6, "record_only", 14962364788673455514),
        (7, "plugin_files", 10240877895951494847),
        (8, "remote_workers", 1322015904856328867),
        (9, "held_records", 8622025893656483806),
    ];

    fn as_applied(upto: usize) -> Vec<Applied> {
        REFINERY[..upto]
            .iter()
            .map(|(version, name, sum)| Applied {
                version: *version,
                name: name.to_string(),
                checksum: sum.to_string(),
            })
            .collect()
    }

    /// `m` as a store records it once applied.
    fn applied(m: &super::Migration) -> Applied {
        Applied { version: m.version, name: m.name.to_string(), checksum: m.checksum().to_string() }
    }

    #[test]
    fn the_schema_hashes_as_refinery_hashed_it() {
        for (m, (version, name, sum)) in MIGRATIONS.iter().zip(REFINERY) {
            assert_eq!((m.version, m.name, m.checksum()), (version, name, sum));
        }
    }

    #[test]
    fn a_store_runs_the_steps_it_lacks_in_order() {
        let versions =
            |upto| pending(&MIGRATIONS, &as_applied(upto)).unwrap().iter().map(|m| m.version).collect::<Vec<_>>();
        assert_eq!(versions(0), (1..=10).collect::<Vec<_>>());
        assert_eq!(versions(7), [8, 9, 10]);
        assert_eq!(versions(9), [10], "the steps after refinery's");
        let mut all = as_applied(9);
        all.push(applied(&MIGRATIONS[9]));
        assert!(pending(&MIGRATIONS, &all).unwrap().is_empty());
    }

    #[test]
    fn a_store_this_build_does_not_match_is_refused() {
        let mut newer = as_applied(9);
        newer.push(applied(&MIGRATIONS[9]));
        newer.push(Applied { version: 11, name: "later".into(), checksum: "1".into() });
        let e = pending(&MIGRATIONS, &newer).err().unwrap();
        assert!(e.contains("V11__later, which this arbiter does not have"), "{e}");
        let mut altered = as_applied(9);
        altered[2].checksum = "7".into();
        let e = pending(&MIGRATIONS, &altered).err().unwrap();
        assert!(e.contains("migration V3__games_by_tournament differs"), "{e}");
        let mut renamed = as_applied(2);
        renamed[1].name = "other".into();
        assert!(pending(&MIGRATIONS, &renamed).is_err());
        let mut gap = as_applied(9);
        gap.remove(4);
        let e = pending(&MIGRATIONS, &gap).err().unwrap();
        assert!(e.contains("skipped migration V5__lz4_game_texts"), "{e}");
    }

    #[test]
    fn applied_on_is_rfc3339_in_utc() {
        let now = super::rfc3339_now();
        let b = now.as_bytes();
        assert_eq!(now.len(), 20, "{now}");
        assert!(
            b[4] == b'-' && b[7] == b'-' && b[10] == b'T' && b[13] == b':' && b[16] == b':' && b[19] == b'Z',
            "{now}"
        );
    }
}
