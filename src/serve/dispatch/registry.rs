//! The one registry of the commands `serve` answers (the table is `table::COMMANDS`): for each, its
//! name and aliases, whether it must run against `admin`, whether a transaction may run it, the
//! privileges it needs under `--user-roles`, whether a query analyzer samples it, how the
//! command log names its namespace, and its handler. `dispatch` reads nothing else to decide
//! what a command is; `docs/serve.md`'s table of commands is generated from it (`table::docs_table`).
//!
//! This file holds the shape of an entry; `table` the entries, the lookup and the docs table.
//! May import `state` (the handlers' signature) and `reply`.

use bson::Document;

use crate::cluster::MongoError;
use crate::serve::reply::raw_reply::Reply;
use crate::serve::state::{Context, State};

/// One command received, as its handler sees it: the name it was called by (a canonical name or
/// an alias), its database, the document and who sent it.
pub struct Call<'a> {
    pub name: &'a str,
    pub db: &'a str,
    pub cmd: &'a Document,
    pub ctx: Context,
}

/// Answers a command.
pub type Handler = fn(&mut State, &Call<'_>) -> Result<Reply, MongoError>;

/// The privileges a command needs: `(action, resource)` pairs (`authorization_checks.cpp` for
/// find and aggregate, each stage's `requiredPrivileges`, the balancer commands'
/// `checkAuthForOperation`). Commands without any are allowed to every user.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Privileges {
    None,
    /// This action on the collection the command names (`db.<first field>`).
    OnCollection(&'static str),
    /// This action on the namespace the command's first field gives (`db.coll`).
    OnNamespace(&'static str),
    /// `find` on `config.settings`.
    FindSettings,
    /// By the pipeline's first stage (`$currentOp`: `inprog` on the cluster…, else `find`).
    Aggregate,
}

pub use crate::serve::state::analyzers::Sampled;

/// How the command log names the namespace a command works on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Namespace {
    /// `db.<first field>` when called by its name (its aliases: as [`Namespace::Dotted`]).
    Collection,
    /// The first field when it holds a dot (`db.coll`); none otherwise.
    Dotted,
}

/// A command of the registry.
#[derive(Clone, Copy)]
pub struct Command {
    pub name: &'static str,
    pub aliases: &'static [&'static str],
    /// Refused (Unauthorized 13) unless run against `admin`.
    pub admin_only: bool,
    /// A multi-document transaction may run it (else OperationNotSupportedInTransaction 263).
    pub in_transaction: bool,
    /// Answered without the state's lock when outside a transaction (it reads only the server
    /// version).
    pub without_state: bool,
    pub privileges: Privileges,
    pub sampled: Sampled,
    pub namespace: Namespace,
    /// The family of commands it belongs to (the section of `docs/serve.md`).
    #[cfg_attr(not(test), allow(dead_code))] // read by the docs table
    pub family: &'static str,
    pub handler: Handler,
}

/// A command called `name`, of `family`, answered by `handler`; none of the properties.
pub const fn command(name: &'static str, family: &'static str, handler: Handler) -> Command {
    Command {
        name,
        aliases: &[],
        admin_only: false,
        in_transaction: false,
        without_state: false,
        privileges: Privileges::None,
        sampled: Sampled::No,
        namespace: Namespace::Dotted,
        family,
        handler,
    }
}

impl Command {
    pub const fn aliases(mut self, aliases: &'static [&'static str]) -> Self {
        self.aliases = aliases;
        self
    }

    pub const fn admin_only(mut self) -> Self {
        self.admin_only = true;
        self
    }

    pub const fn in_transaction(mut self) -> Self {
        self.in_transaction = true;
        self
    }

    pub const fn without_state(mut self) -> Self {
        self.without_state = true;
        self
    }

    pub const fn privileges(mut self, p: Privileges) -> Self {
        self.privileges = p;
        self
    }

    pub const fn sampled(mut self, s: Sampled) -> Self {
        self.sampled = s;
        self
    }

    pub const fn on_collection(mut self) -> Self {
        self.namespace = Namespace::Collection;
        self
    }
}

#[cfg_attr(not(test), allow(dead_code))] // the docs table, checked by a test
impl Privileges {
    pub fn describe(self) -> String {
        match self {
            Self::None => String::new(),
            Self::OnCollection(a) => format!("`{a}` on the collection"),
            Self::OnNamespace(a) => format!("`{a}` on the namespace"),
            Self::FindSettings => "`find` on `config.settings`".into(),
            Self::Aggregate => "by the first stage".into(),
        }
    }
}
