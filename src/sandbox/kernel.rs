//! The Landlock calls: probing the kernel, building a ruleset from [`Grant`]s in the parent,
//! and enforcing it in the child between fork and exec.

use landlock::{
    ABI, Access as _, AccessFs, BitFlags, CompatLevel, Compatible, PathBeneath, PathFd, Ruleset,
    RulesetAttr, RulesetCreated, RulesetCreatedAttr, RulesetStatus, Scope,
};

use super::grants::{Access, Grant};

/// The newest Landlock ABI whose filesystem rights the box handles. Newer kernels enforce it
/// as is; older ones enforce what they know (Landlock is backward compatible), down to ABI 1.
const TARGET_ABI: ABI = ABI::V6;

/// Whether this kernel enforces a Landlock domain.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Support {
    /// Landlock is there: every CLI runs in a domain. `abi` is the kernel's version.
    Enforced {
        /// The kernel's Landlock ABI version.
        abi: i32,
    },
    /// No Landlock: the CLI runs with the bot's guards only.
    Unavailable {
        /// Why, in a few words.
        reason: String,
    },
}

/// Asks the kernel for its Landlock ABI version.
pub fn support() -> Support {
    const LANDLOCK_CREATE_RULESET_VERSION: libc::c_uint = 1;
    // SAFETY: the version query takes no pointer (null, size 0) and only returns a number.
    let version = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<libc::c_void>(),
            0usize,
            LANDLOCK_CREATE_RULESET_VERSION,
        )
    };
    if version >= 1 {
        return Support::Enforced {
            abi: i32::try_from(version).unwrap_or(i32::MAX),
        };
    }
    let reason = match std::io::Error::last_os_error().raw_os_error() {
        Some(libc::EOPNOTSUPP) => "Landlock is built into this kernel but not enabled at boot",
        Some(libc::ENOSYS) => "this kernel has no Landlock",
        _ => "the Landlock version query failed",
    };
    Support::Unavailable {
        reason: reason.to_owned(),
    }
}

/// The rights of one [`Access`] at [`TARGET_ABI`].
fn rights(access: Access) -> BitFlags<AccessFs> {
    let read = AccessFs::from_read(TARGET_ABI) & !AccessFs::Execute;
    match access {
        Access::List => AccessFs::ReadDir.into(),
        Access::Read => read,
        Access::ReadExec => AccessFs::from_read(TARGET_ABI),
        Access::ReadWriteFlat => {
            read | AccessFs::WriteFile
                | AccessFs::Truncate
                | AccessFs::MakeReg
                | AccessFs::RemoveFile
                | AccessFs::Refer
        }
        Access::ReadWriteTree => {
            read | AccessFs::WriteFile
                | AccessFs::Truncate
                | AccessFs::MakeReg
                | AccessFs::MakeDir
                | AccessFs::RemoveFile
                | AccessFs::RemoveDir
                | AccessFs::Refer
        }
        Access::ReadWriteFile => AccessFs::ReadFile | AccessFs::WriteFile | AccessFs::Truncate,
        Access::Full => AccessFs::from_all(TARGET_ABI),
        Access::Device => {
            AccessFs::ReadFile | AccessFs::WriteFile | AccessFs::Truncate | AccessFs::IoctlDev
        }
    }
}

/// Builds the ruleset in the parent (opening each path). Paths that don't exist are left
/// out; a file path gets only the file rights of its grant.
fn ruleset(grants: &[Grant]) -> Result<RulesetCreated, landlock::RulesetError> {
    let mut ruleset = Ruleset::default()
        .set_compatibility(CompatLevel::BestEffort)
        .handle_access(AccessFs::from_all(TARGET_ABI))?
        .scope(Scope::Signal | Scope::AbstractUnixSocket)?
        .create()?;
    for grant in grants {
        let Ok(fd) = PathFd::new(&grant.path) else {
            continue;
        };
        let mut access = rights(grant.access);
        if !grant.path.is_dir() {
            access &= AccessFs::from_file(TARGET_ABI);
        }
        ruleset = ruleset.add_rule(PathBeneath::new(fd, access))?;
    }
    Ok(ruleset)
}

/// Enforces a domain of `grants` on this process (and so on everything it execs). Fails when
/// the kernel would enforce nothing after all: the program is then not started unconfined.
pub(super) fn restrict_self(grants: &[Grant]) -> Result<(), std::io::Error> {
    let status = ruleset(grants)
        .map_err(std::io::Error::other)?
        .restrict_self()
        .map_err(std::io::Error::other)?;
    if status.ruleset == RulesetStatus::NotEnforced {
        return Err(std::io::Error::other(
            "the kernel did not enforce the Landlock sandbox",
        ));
    }
    Ok(())
}
