//! SKL-2, SKL-3, SKL-7, SKL-8, SKL-9, E.5: name rules, `SKILL.md` parsing, resolution for a
//! job, listing and the bundled-skill installer.

use std::fs;
use std::path::Path;

use super::*;

fn write_skill(skills: &Path, dir: &str, text: &str) {
    fs::create_dir_all(skills.join(dir)).unwrap();
    fs::write(skills.join(dir).join(SKILL_FILE), text).unwrap();
}

fn names(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| (*s).to_owned()).collect()
}

const WEEKLY: &str = "---\nname: weekly-plan\ndescription: Plan the week\n\
allowed-tools:\n  - Bash(ollim-bot cal *)\n  - Read\n---\n\n# Plan\nDo it.\n";

#[test]
fn skl3_resolves_a_skill_with_its_frontmatter_and_body() {
    let dir = tempfile::tempdir().unwrap();
    write_skill(dir.path(), "weekly-plan", WEEKLY);
    let skills = resolve_skills(dir.path(), &names(&["weekly-plan", "weekly-plan"])).unwrap();
    assert_eq!(
        skills,
        vec![Skill {
            name: "weekly-plan".into(),
            description: Some("Plan the week".into()),
            allowed_tools: names(&["Bash(ollim-bot cal *)", "Read"]),
            body: "# Plan\nDo it.".into(),
            dir: dir.path().join("weekly-plan"),
            notes: Vec::new(),
        }]
    );
}

#[test]
fn e5_allowed_tools_may_be_a_comma_separated_string() {
    let dir = tempfile::tempdir().unwrap();
    write_skill(
        dir.path(),
        "mail",
        "---\nname: mail\ndescription: Mail\n\
         allowed-tools: Read, Bash(ollim-bot gmail search \"a, b\" *),Grep\n---\nbody\n",
    );
    let skill = &resolve_skills(dir.path(), &names(&["mail"])).unwrap()[0];
    assert_eq!(
        skill.allowed_tools,
        names(&["Read", "Bash(ollim-bot gmail search \"a, b\" *)", "Grep"])
    );
}

#[test]
fn skl9_other_claude_code_keys_are_tolerated() {
    let dir = tempfile::tempdir().unwrap();
    write_skill(
        dir.path(),
        "deep-dive",
        "---\nname: deep-dive\ndescription: Dig in\nargument-hint: \"[topic]\"\nmodel: opus\n\
         disable-model-invocation: true\nuser-invocable: true\ncontext: fork\nagent: Explore\n\
         hooks:\n  PreToolUse: []\n---\nLook into $ARGUMENTS.\n",
    );
    let skill = &resolve_skills(dir.path(), &names(&["deep-dive"])).unwrap()[0];
    assert!(skill.allowed_tools.is_empty());
    assert_eq!(skill.body, "Look into $ARGUMENTS.");
}

#[test]
fn skl2_traversal_is_reported_missing_without_a_lookup() {
    let root = tempfile::tempdir().unwrap();
    let skills = root.path().join("skills");
    fs::create_dir_all(&skills).unwrap();
    // A real SKILL.md outside skills/ that each name below would reach if joined.
    write_skill(
        root.path(),
        "x",
        "---\nname: x\ndescription: outside\n---\nbody\n",
    );
    write_skill(&skills, "a", "---\nname: a\ndescription: A\n---\nbody\n");
    write_skill(
        &skills.join("a"),
        "b",
        "---\nname: b\ndescription: B\n---\nbody\n",
    );
    let outside = root.path().join("x").display().to_string();
    let problems =
        resolve_skills(&skills, &names(&["../x", &outside, "a/b", "..", "."])).unwrap_err();
    assert_eq!(problems.len(), 5);
    for problem in &problems {
        assert!(
            matches!(problem, SkillProblem::Missing { .. }),
            "{problem:?}"
        );
    }
    assert_eq!(
        problems[0].to_string(),
        "skill \"../x\" not found (a skill name can't point outside skills/)"
    );
}

#[test]
fn skl3_every_problem_is_reported_with_a_one_line_reason() {
    let dir = tempfile::tempdir().unwrap();
    write_skill(dir.path(), "weekly-plan", WEEKLY);
    write_skill(
        dir.path(),
        "renamed",
        "---\nname: other\ndescription: D\n---\nbody\n",
    );
    write_skill(dir.path(), "no-front", "just text\n");
    write_skill(dir.path(), "no-desc", "---\nname: no-desc\n---\nbody\n");
    write_skill(
        dir.path(),
        "open",
        "---\nname: open\ndescription: D\nbody\n",
    );
    write_skill(dir.path(), "bad-yaml", "---\nname: [oops\n---\nbody\n");
    write_skill(dir.path(), "listy", "---\n- a\n- b\n---\nbody\n");
    let problems = resolve_skills(
        dir.path(),
        &names(&[
            "weekly-plan",
            "nope",
            "Weekly_Plan",
            "renamed",
            "no-front",
            "no-desc",
            "open",
            "bad-yaml",
            "listy",
        ]),
    )
    .unwrap_err();
    let lines: Vec<String> = problems.iter().map(ToString::to_string).collect();
    assert_eq!(lines[0], "skill \"nope\" not found (skills/nope/SKILL.md)");
    assert_eq!(
        lines[1],
        "skill \"Weekly_Plan\" has an invalid name: skill names use only lowercase letters, \
         digits and hyphens"
    );
    assert!(matches!(problems[2], SkillProblem::InvalidName { .. }));
    assert!(lines[2].contains("they must match"), "{}", lines[2]);
    assert!(
        lines[3]
            .starts_with("skill \"no-front\" can't be used (skills/no-front/SKILL.md): no YAML"),
        "{}",
        lines[3]
    );
    assert!(lines[4].contains("missing required field \"description\""));
    assert!(lines[5].contains("not closed"));
    assert!(lines[6].contains("not valid YAML"));
    assert!(lines[7].contains("not a YAML mapping"));
    assert_eq!(lines.len(), 8);
    assert!(lines.iter().all(|l| !l.contains('\n')));
}

#[test]
fn skl3_no_names_resolve_to_nothing() {
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(
        resolve_skills(&dir.path().join("absent"), &[]).unwrap(),
        vec![]
    );
}

#[test]
fn list_skills_returns_every_valid_skill_sorted() {
    let dir = tempfile::tempdir().unwrap();
    write_skill(dir.path(), "weekly-plan", WEEKLY);
    write_skill(
        dir.path(),
        "alpha",
        "---\nname: alpha\ndescription: A\n---\nbody\n",
    );
    write_skill(dir.path(), "broken", "no frontmatter");
    write_skill(
        dir.path(),
        "Upper",
        "---\nname: Upper\ndescription: U\n---\nbody\n",
    );
    fs::create_dir_all(dir.path().join("empty")).unwrap();
    fs::write(dir.path().join("stray.md"), "x").unwrap();
    let listed: Vec<String> = list_skills(dir.path())
        .into_iter()
        .map(|s| s.name)
        .collect();
    assert_eq!(listed, names(&["alpha", "weekly-plan"]));
    assert!(list_skills(&dir.path().join("absent")).is_empty());
}

/// An unedited `job-config` from before the Google tools is brought up to date; an edited one
/// stays.
#[test]
fn skl8_an_unedited_retired_skill_is_replaced() {
    let dir = tempfile::tempdir().unwrap();
    let skills = dir.path().join("skills");
    let path = skills.join("job-config").join(SKILL_FILE);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    let old = include_str!("bundled/retired/job-config.md");
    assert!(old.contains("Bash(ollim-bot gmail *)"));
    fs::write(&path, old).unwrap();
    assert_eq!(
        install_bundled_skills(&skills).unwrap(),
        vec!["job-config", "setup", "improve-routine"]
    );
    let current = fs::read_to_string(&path).unwrap();
    assert!(current.contains("mcp__discord__gmail"), "{current}");
    let edited = format!("{old}\nMy own rule.\n");
    fs::write(&path, &edited).unwrap();
    assert!(install_bundled_skills(&skills).unwrap().is_empty());
    assert_eq!(fs::read_to_string(&path).unwrap(), edited);
}

#[test]
fn skl8_bundled_skills_are_installed_once_and_never_overwritten() {
    let dir = tempfile::tempdir().unwrap();
    let skills = dir.path().join("skills");
    assert_eq!(
        install_bundled_skills(&skills).unwrap(),
        vec!["job-config", "setup", "improve-routine"]
    );
    let path = skills.join("job-config").join(SKILL_FILE);
    fs::write(
        &path,
        "---\nname: job-config\ndescription: mine\n---\nthe owner's version\n",
    )
    .unwrap();
    assert!(install_bundled_skills(&skills).unwrap().is_empty());
    assert!(
        fs::read_to_string(&path)
            .unwrap()
            .contains("the owner's version")
    );
    assert!(is_bundled("job-config"));
    assert!(!is_bundled("weekly-plan"));
}

#[test]
fn skl8_every_bundled_skill_is_a_valid_skill_pointing_at_the_spec() {
    let dir = tempfile::tempdir().unwrap();
    install_bundled_skills(dir.path()).unwrap();
    let all: Vec<String> = BUNDLED_SKILLS
        .iter()
        .map(|(n, _)| (*n).to_owned())
        .collect();
    let skills = resolve_skills(dir.path(), &all).unwrap();
    let job_config = &skills[0];
    assert!(
        job_config.allowed_tools.is_empty(),
        "guidance only, no extra tools"
    );
    for needle in [
        "routine-reminder-spec.md",
        "allowed-tools",
        "Bash(*)",
        "state/",
        "background",
        "allow-ping",
        "update-main-session",
        "isolated",
        "session: persistent",
        "skills:",
        "subagent",
        "model",
        "thinking",
        "Approve",
    ] {
        assert!(
            job_config.body.contains(needle),
            "job-config lacks {needle}"
        );
    }
    let setup = &skills[1];
    assert_eq!(setup.name, "setup");
    assert!(setup.allowed_tools.is_empty());
    for needle in [
        "$ARGUMENTS",
        "quick",
        "update_names",
        "/restart",
        "USER.md",
        "IDENTITY.md",
        "0 9 * * 1-5",
        "job-config",
        "/google-auth",
        "state/credentials.json",
    ] {
        assert!(setup.body.contains(needle), "setup lacks {needle}");
    }
}

#[test]
fn slc14_the_setup_prompt_is_the_skill_with_its_arguments() {
    let dir = tempfile::tempdir().unwrap();
    install_bundled_skills(dir.path()).unwrap();
    let prompt = skill_prompt(dir.path(), "setup", "quick").unwrap();
    assert!(prompt.starts_with("[setup] "), "{prompt}");
    assert!(prompt.contains("Arguments: `quick`"), "{prompt}");
    assert!(
        !prompt.contains("disable-model-invocation"),
        "frontmatter left out"
    );
    let plain = skill_prompt(dir.path(), "setup", "").unwrap();
    assert!(plain.contains("Arguments: `(none)`"), "{plain}");
    // The owner's adapted copy is what runs; its `!`command`` markers are never run.
    fs::write(
        dir.path().join("setup").join(SKILL_FILE),
        "---\nname: setup\ndescription: mine\n---\nask about !`id` $ARGUMENTS\n",
    )
    .unwrap();
    assert_eq!(
        skill_prompt(dir.path(), "setup", "quick").unwrap(),
        "[setup] The owner started the `setup` skill. Follow it:\n\nask about !`id` quick"
    );
    let missing = skill_prompt(dir.path(), "nope", "").unwrap_err();
    assert_eq!(
        missing.to_string(),
        "skill \"nope\" not found (skills/nope/SKILL.md)"
    );
}
