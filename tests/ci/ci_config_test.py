#!/usr/bin/env python3
"""Runs the shell steps of the bundled CI configurations (ci/github, ci/gitlab) locally, as
the CI would, against a tiny scenario pair, and checks the files and outputs they promise.

GitHub: each composite action's `run` steps go through bash as GitHub runs them (`bash
--noprofile --norc -eo pipefail`), with `${{ inputs.* }}`, `${{ steps.*.outputs.* }}` and the
`if:` conditions evaluated; upload-artifact and download-artifact are played by copying folders.
GitLab: the hidden jobs' scripts run in one folder (artifacts come back at the same paths), with
the template's variables, CI_NODE_INDEX/CI_NODE_TOTAL for `parallel`.

usage: ci_config_test.py --source SOURCE_DIR --killpoint BUILD/bin/killpoint
"""
import argparse
import fnmatch
import os
import re
import shutil
import subprocess
import sys
import tempfile

import yaml

FAILURES = []


def check(condition, what):
    if not condition:
        FAILURES.append(what)
        print("FAIL: " + what, file=sys.stderr)


# --- GitHub Actions -------------------------------------------------------------------------

EXPR = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")
TOKEN = re.compile(r"\s*('[^']*'|always\(\)|success\(\)|==|!=|&&|\|\||!|\(|\)|[A-Za-z_][\w.-]*)")


def lookup(path, ctx):
    parts = path.split(".")
    if parts[0] == "inputs":
        return ctx["inputs"][parts[1]]
    if parts[0] == "steps" and parts[2] == "outputs":
        return ctx["steps"].get(parts[1], {}).get(parts[3], "")
    if path == "github.action_path":
        return ctx["action_path"]
    if parts[0] == "github" and parts[1] in ctx["github"]:
        return ctx["github"][parts[1]]
    raise ValueError("expression not understood by this test: " + path)


def evaluate(expr, ctx):
    """A GitHub expression, as far as the bundled actions use them."""
    py, at = [], 0
    while at < len(expr):
        m = TOKEN.match(expr, at)
        if not m:
            raise ValueError("cannot read expression: " + expr)
        t, at = m.group(1), m.end()
        if t.startswith("'"):
            py.append(repr(t[1:-1]))
        elif t in ("always()", "success()"):
            py.append("True" if t == "always()" else repr(ctx["ok"]))
        elif t in ("==", "!=", "(", ")"):
            py.append(t)
        else:
            py.append({"&&": "and", "||": "or", "!": "not"}.get(t) or repr(lookup(t, ctx)))
    return eval(" ".join(py))  # noqa: S307 - our own tokens only


def substitute(text, ctx):
    return EXPR.sub(lambda m: str(evaluate(m.group(1), ctx)), str(text))


# The event a run plays (github.*), and where actions/cache keeps its entries.
PUSH = {"event_name": "push", "ref_name": "main", "base_ref": "", "run_id": "1"}


def run_action(action_file, inputs, work, artifacts, step_summary, github=None, cache=None):
    """Runs a composite action; returns (ok, outputs)."""
    with open(action_file) as f:
        action = yaml.safe_load(f)
    given = {k: str(v.get("default", "")) for k, v in action.get("inputs", {}).items()}
    for k in inputs:
        check(k in given, f"{action_file}: no input {k}")
    given.update(inputs)
    ctx = {"inputs": given, "steps": {}, "ok": True,
           "action_path": os.path.dirname(os.path.abspath(action_file)),
           "github": github or PUSH, "cache": cache or os.path.join(artifacts, "..", "cache")}
    for step in action["runs"]["steps"]:
        condition = step.get("if", "success()")
        if not evaluate(str(condition), ctx):
            continue
        if "uses" in step:
            play_uses(step, ctx, work, artifacts)
            continue
        check(step.get("shell") == "bash", f"{action_file}: a run step without shell: bash")
        output_file = os.path.join(work, "github_output")
        open(output_file, "w").close()
        env = dict(os.environ, GITHUB_OUTPUT=output_file, GITHUB_STEP_SUMMARY=step_summary)
        env.update({k: substitute(v, ctx) for k, v in step.get("env", {}).items()})
        check("${{" not in step["run"],
              f"{action_file}: inputs reach the script through env:, never spliced into it")
        script = os.path.join(work, "step.sh")
        with open(script, "w") as f:
            f.write(step["run"])
        rc = subprocess.call(["bash", "--noprofile", "--norc", "-eo", "pipefail", script],
                             cwd=work, env=env)
        outputs = {}
        with open(output_file) as f:
            for line in f:
                key, _, value = line.rstrip("\n").partition("=")
                outputs[key] = value
        if "id" in step:
            ctx["steps"][step["id"]] = outputs
        ctx["ok"] = ctx["ok"] and rc == 0
    result = {k: substitute(v["value"], ctx) for k, v in action.get("outputs", {}).items()}
    return ctx["ok"], result


def play_uses(step, ctx, work, artifacts):
    args = {k: substitute(v, ctx) for k, v in step.get("with", {}).items()}
    if step["uses"].startswith("actions/upload-artifact@"):
        if not os.path.isdir(os.path.join(work, args["path"])):
            check(False, f"upload-artifact: {args['path']} does not exist")
            return
        shutil.copytree(os.path.join(work, args["path"]),
                        os.path.join(artifacts, args["name"]), dirs_exist_ok=True)
    elif step["uses"].startswith("actions/download-artifact@"):
        for name in sorted(os.listdir(artifacts)):
            if fnmatch.fnmatch(name, args["pattern"]):
                shutil.copytree(os.path.join(artifacts, name),
                                os.path.join(work, args["path"], name), dirs_exist_ok=True)
    elif step["uses"].startswith("actions/cache/save@"):
        # An entry per key; its path must be the one restore asks for, as the real cache's
        # version is computed from it.
        entry = os.path.join(ctx["cache"], args["key"])
        shutil.copytree(os.path.join(work, args["path"]), os.path.join(entry, args["path"]))
    elif step["uses"].startswith("actions/cache/restore@"):
        # The exact key, else the newest entry whose key starts with a restore key.
        keys = sorted(os.listdir(ctx["cache"])) if os.path.isdir(ctx["cache"]) else []
        hit = [k for k in keys if k == args["key"]] or [
            k for k in keys if k.startswith(args.get("restore-keys", "\0")) and
            os.path.isdir(os.path.join(ctx["cache"], k, args["path"]))]
        if hit:
            shutil.copytree(os.path.join(ctx["cache"], hit[-1], args["path"]),
                            os.path.join(work, args["path"]), dirs_exist_ok=True)
    else:
        raise ValueError("step not played by this test: " + step["uses"])


def reports_in(folder, what):
    for name in ("results.json", "report.html", "junit.xml", "summary.md"):
        check(os.path.isfile(os.path.join(folder, name)), f"{what}: no {name} in {folder}")


def test_github(source, killpoint, correct, buggy, tmp):
    action = os.path.join(source, "ci/github/action.yml")
    merge = os.path.join(source, "ci/github/merge/action.yml")
    # The base branch: one unsharded run, gated.
    base = os.path.join(tmp, "gh-base")
    os.makedirs(base)
    summary = os.path.join(tmp, "gh-base-summary.md")
    ok, out = run_action(action, {"scenarios": correct, "killpoint": killpoint, "trials": "2"},
                         base, os.path.join(tmp, "gh-base-artifacts"), summary)
    check(ok, "github: the base run's gate failed")
    check(out["exit-code"] == "0", f"github: base exit-code {out['exit-code']}")
    for key in ("report", "junit", "summary"):
        check(os.path.isfile(os.path.join(base, out[key])), f"github: output {key} missing")
    check(os.path.isfile(os.path.join(tmp, "gh-base-artifacts/killpoint-report/report.html")),
          "github: the report was not uploaded")
    check("every must-hold invariant held" in open(summary).read(),
          "github: no step summary")
    # A first pull request: the base branch has no results yet. The run gates alone, with a
    # notice, instead of exit 2 on a missing baseline (issue 33).
    first = os.path.join(tmp, "gh-first")
    os.makedirs(first)
    ok, out = run_action(action, {"scenarios": correct, "killpoint": killpoint, "trials": "2",
                                  "baseline": os.path.join(first, "never-downloaded")},
                         first, os.path.join(tmp, "gh-first-artifacts"),
                         os.path.join(tmp, "gh-first-summary.md"))
    check(ok and out["exit-code"] == "0",
          f"github: a first run without its baseline exit-code {out.get('exit-code')}")
    # baseline-cache (issue 33: the templates never fetched a baseline): a push to main keeps
    # its results in the cache; a pull request against main restores the newest and compares.
    cache = os.path.join(tmp, "gh-cache")
    main_run = os.path.join(tmp, "gh-main")
    os.makedirs(main_run)
    ok, out = run_action(action, {"scenarios": correct, "killpoint": killpoint, "trials": "2",
                                  "baseline-cache": "true"},
                         main_run, os.path.join(tmp, "gh-main-artifacts"),
                         os.path.join(tmp, "gh-main-summary.md"), PUSH, cache)
    check(ok and os.path.isdir(os.path.join(cache, "killpoint-baseline-main-1")),
          "github: a push with baseline-cache saved no baseline")
    pr_run = os.path.join(tmp, "gh-pr-cached")
    os.makedirs(pr_run)
    pull = {"event_name": "pull_request", "ref_name": "7/merge", "base_ref": "main",
            "run_id": "2"}
    ok, out = run_action(action, {"scenarios": buggy, "killpoint": killpoint, "trials": "2",
                                  "baseline-cache": "true"},
                         pr_run, os.path.join(tmp, "gh-pr-cached-artifacts"),
                         os.path.join(tmp, "gh-pr-cached-summary.md"), pull, cache)
    check(not ok and out["exit-code"] == "1",
          f"github: a pull request against the cached baseline exit-code {out.get('exit-code')}")
    check(os.path.isfile(os.path.join(pr_run, "killpoint-out/diff.json")),
          "github: the pull request was not compared with the cached baseline")
    # The pull request: two shards of the matrix, then the merge against the base.
    pr, artifacts = os.path.join(tmp, "gh-pr"), os.path.join(tmp, "gh-pr-artifacts")
    os.makedirs(pr)
    summary = os.path.join(tmp, "gh-pr-summary.md")
    open(summary, "w").close()
    for index in (0, 1):
        ok, out = run_action(action, {"scenarios": buggy, "killpoint": killpoint,
                                      "shard": f"{index}/2", "trials": "2"},
                             pr, artifacts, summary)
        check(ok, f"github: shard {index} failed its step (a shard does not gate)")
        check(out["exit-code"] == "1", f"github: shard {index} exit-code {out['exit-code']}")
        reports_in(os.path.join(artifacts, f"killpoint-report-shard-{index}"), "github shard")
    check(open(summary).read() == "", "github: a shard wrote the step summary")
    ok, out = run_action(merge, {"killpoint": killpoint,
                                 "baseline": os.path.join(base, "killpoint-out")},
                         pr, artifacts, summary)
    check(not ok, "github: the merge's gate passed a new violation")
    check(out["exit-code"] == "1", f"github: merge exit-code {out['exit-code']}")
    reports_in(os.path.join(artifacts, "killpoint-report"), "github merge")
    check(os.path.isfile(os.path.join(pr, "killpoint-out/diff.json")), "github: no diff.json")
    text = open(summary).read()
    check("Against the baseline" in text and "no\\_double\\_publish" in text,
          "github: the step summary does not lead with the diff")


# --- GitLab CI ------------------------------------------------------------------------------

def run_gitlab_job(job, variables, work, extra_env):
    env = dict(os.environ)
    env.update({k: str(v) for k, v in variables.items()})
    env.update(extra_env)
    script = os.path.join(work, "job.sh")
    with open(script, "w") as f:
        lines = []
        for item in job.get("before_script", []) + job["script"]:  # anchors nest lists
            lines.extend(item if isinstance(item, list) else [item])
        f.write("\n".join(lines) + "\n")
    return subprocess.call(["bash", "-eo", "pipefail", script], cwd=work, env=env)


def artifacts_exist(job, work, what):
    for path in job["artifacts"]["paths"]:
        check(os.path.exists(os.path.join(work, path)), f"{what}: artifact {path} missing")
    junit = job["artifacts"].get("reports", {}).get("junit")
    if junit:
        check(os.path.isfile(os.path.join(work, junit)), f"{what}: junit report {junit} missing")


def test_gitlab(source, killpoint, correct, buggy, tmp):
    with open(os.path.join(source, "ci/gitlab/killpoint.gitlab-ci.yml")) as f:
        template = yaml.safe_load(f)
    variables = dict(template["variables"], KILLPOINT=killpoint, KILLPOINT_TRIALS="2")
    run, shard, merge = (template[".killpoint-run"], template[".killpoint-shard"],
                         template[".killpoint-merge"])
    # Only the jobs that gate give the test report and the merge request's link: a shard's
    # junit.xml does not exist, and N shards would each add the same link (issue 33).
    check("reports" not in shard["artifacts"] and "expose_as" not in shard["artifacts"],
          "gitlab: a shard job reports junit or exposes a link")
    # The target branch, sharded: parallel: 2, then the merge.
    base = os.path.join(tmp, "gl-base")
    os.makedirs(base)
    for node in (1, 2):
        rc = run_gitlab_job(shard, dict(variables, KILLPOINT_SCENARIOS=correct), base,
                            {"CI_NODE_INDEX": str(node), "CI_NODE_TOTAL": "2"})
        check(rc == 0, f"gitlab: shard job {node} exit {rc}")
        artifacts_exist(shard, base, f"gitlab shard {node}")
    rc = run_gitlab_job(merge, variables, base, {})
    check(rc == 0, f"gitlab: merge exit {rc}")
    artifacts_exist(merge, base, "gitlab merge")
    reports_in(os.path.join(base, "killpoint-out"), "gitlab merge")
    # A merge request, unsharded, against the target branch's results: the gate fails.
    mr = os.path.join(tmp, "gl-mr")
    os.makedirs(mr)
    rc = run_gitlab_job(run, dict(variables, KILLPOINT_SCENARIOS=buggy,
                                  KILLPOINT_BASELINE=os.path.join(base, "killpoint-out")), mr, {})
    check(rc == 1, f"gitlab: a new violation against the baseline exit {rc}, not 1")
    check(os.path.isfile(os.path.join(mr, "killpoint-out/junit.xml")), "gitlab: no junit")
    check(os.path.isfile(os.path.join(mr, "killpoint-out/diff.json")), "gitlab: no diff.json")
    rc = run_gitlab_job(run, dict(variables, KILLPOINT_SCENARIOS=buggy, KILLPOINT_FAIL_ON="none",
                                  KILLPOINT_BASELINE=os.path.join(base, "killpoint-out")), mr, {})
    check(rc == 0, f"gitlab: --fail-on none exit {rc}")
    # The first merge request of a project: the target branch has no results yet. The run
    # gates alone, with a note, instead of exit 2 on a missing baseline (issue 33).
    first = os.path.join(tmp, "gl-first")
    os.makedirs(first)
    rc = run_gitlab_job(run, dict(variables, KILLPOINT_SCENARIOS=correct,
                                  KILLPOINT_BASELINE=os.path.join(first, "never-fetched")), first, {})
    check(rc == 0, f"gitlab: a first run without its baseline exit {rc}, not 0")
    artifacts_exist(run, first, "gitlab first run")
    # KILLPOINT_BASELINE_JOB (issue 33: the template never fetched a baseline): a merge request
    # downloads the target branch's artifacts of that job through the jobs API (curl played by
    # a copy of the target branch's artifacts, zipped as GitLab serves them), then compares.
    archive = shutil.make_archive(os.path.join(tmp, "gl-artifacts"), "zip", base, "killpoint-out")
    fake = os.path.join(tmp, "gl-fake-bin")
    os.makedirs(fake)
    with open(os.path.join(fake, "curl"), "w") as f:
        f.write('#!/bin/bash\n# The jobs API: the asked job on main has the artifacts, others none.\n'
                'out=; for a; do [ "$prev" = --output ] && out=$a; prev=$a; done\n'
                f'case "${{@: -1}}" in *"/jobs/artifacts/main/download?job=killpoint-merge") '
                f'cp {archive} "$out" ;; *) echo "curl: (22) 404" >&2; exit 22 ;; esac\n')
    os.chmod(os.path.join(fake, "curl"), 0o755)
    api = {"PATH": fake + os.pathsep + os.environ["PATH"], "CI_JOB_TOKEN": "t",
           "CI_API_V4_URL": "https://gitlab.example/api/v4", "CI_PROJECT_ID": "1",
           "CI_MERGE_REQUEST_TARGET_BRANCH_NAME": "main"}
    fetched = os.path.join(tmp, "gl-fetched")
    os.makedirs(fetched)
    rc = run_gitlab_job(run, dict(variables, KILLPOINT_SCENARIOS=buggy,
                                  KILLPOINT_BASELINE_JOB="killpoint-merge"), fetched, api)
    check(rc == 1, f"gitlab: a merge request against the fetched baseline exit {rc}, not 1")
    check(os.path.isfile(os.path.join(fetched, "killpoint-out/diff.json")),
          "gitlab: the merge request was not compared with the fetched baseline")
    # A target branch without those artifacts yet: the run gates alone.
    rc = run_gitlab_job(run, dict(variables, KILLPOINT_SCENARIOS=correct,
                                  KILLPOINT_BASELINE_JOB="no-such-job"), fetched, api)
    check(rc == 0, f"gitlab: a merge request whose target has no results yet exit {rc}, not 0")


# --- Installing killpoint from its .deb ----------------------------------------------------

FAKE_APT = """#!/bin/bash
# The test's apt-get: "install" unpacks each .deb file into $KP_TEST_ROOT (dpkg-deb -x, no
# root, nothing installed on the machine) and puts its killpoint on the PATH the test gave the
# job; a package named from Debian's archive is taken as there.
case "$1" in
  update) exit 0 ;;
  install)
    shift
    for arg; do
      case "$arg" in
        -*) ;;
        *.deb) dpkg-deb -x "$arg" "$KP_TEST_ROOT" && ln -sf "$KP_TEST_ROOT/usr/bin/killpoint" "$KP_TEST_BIN/killpoint" ;;
        *) ;;  # a package of Debian's archive (curl): this machine has what the test needs
      esac
    done ;;
  *) echo "apt-get $*: not played by this test" >&2; exit 2 ;;
esac
"""


def fake_installer(tmp, name):
    """A PATH folder with the test's apt-get and a sudo that runs its command."""
    root, bin_dir = os.path.join(tmp, name + "-root"), os.path.join(tmp, name + "-bin")
    os.makedirs(root)
    os.makedirs(bin_dir)
    for tool, text in (("apt-get", FAKE_APT), ("sudo", "#!/bin/sh\nexec \"$@\"\n")):
        path = os.path.join(bin_dir, tool)
        with open(path, "w") as f:
            f.write(text)
        os.chmod(path, 0o755)
    return {"KP_TEST_ROOT": root, "KP_TEST_BIN": bin_dir,
            "PATH": bin_dir + os.pathsep + os.environ["PATH"]}


def test_install(source, deb, correct, tmp):
    """Both templates as a user writes them: killpoint is not on the machine; `deb` installs it
    (issue 33: neither template installed killpoint, so neither ran as written)."""
    saved = dict(os.environ)
    try:
        os.environ.update(fake_installer(tmp, "gh-install"))
        work = os.path.join(tmp, "gh-install")
        os.makedirs(work)
        ok, out = run_action(os.path.join(source, "ci/github/action.yml"),
                             {"scenarios": correct, "trials": "2", "deb": deb}, work,
                             os.path.join(tmp, "gh-install-artifacts"),
                             os.path.join(tmp, "gh-install-summary.md"))
        check(ok and out["exit-code"] == "0",
              f"github: a run installing {deb} exit-code {out.get('exit-code')}")
        reports_in(os.path.join(work, "killpoint-out"), "github install")
        check(os.path.islink(os.path.join(os.environ["KP_TEST_BIN"], "killpoint")),
              "github: the install step did not install killpoint from the .deb")
    finally:
        os.environ.clear()
        os.environ.update(saved)
    with open(os.path.join(source, "ci/gitlab/killpoint.gitlab-ci.yml")) as f:
        template = yaml.safe_load(f)
    work = os.path.join(tmp, "gl-install")
    os.makedirs(work)
    env = fake_installer(tmp, "gl-install")
    rc = run_gitlab_job(template[".killpoint-run"],
                        dict(template["variables"], KILLPOINT_SCENARIOS=correct,
                             KILLPOINT_TRIALS="2", KILLPOINT_DEB=deb), work, env)
    check(rc == 0, f"gitlab: a run installing {deb} exit {rc}")
    check(os.path.islink(os.path.join(env["KP_TEST_BIN"], "killpoint")),
          "gitlab: before_script did not install killpoint from the .deb")
    reports_in(os.path.join(work, "killpoint-out"), "gitlab install")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--source", required=True)
    parser.add_argument("--killpoint", help="the killpoint the templates run")
    parser.add_argument("--deb", help="instead: install this .deb through the templates first")
    a = parser.parse_args()
    correct = os.path.join(a.source, "tests/fixtures/baseline/correct.json")
    buggy = os.path.join(a.source, "tests/fixtures/baseline/buggy.json")
    tmp = tempfile.mkdtemp(prefix="kp-ci-config-")
    try:
        if a.deb:
            test_install(a.source, os.path.abspath(a.deb), correct, tmp)
        else:
            test_github(a.source, os.path.abspath(a.killpoint), correct, buggy, tmp)
            test_gitlab(a.source, os.path.abspath(a.killpoint), correct, buggy, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if FAILURES:
        print(f"{len(FAILURES)} failures", file=sys.stderr)
        return 1
    print("ci configurations: every step ran and left what it promises")
    return 0


if __name__ == "__main__":
    sys.exit(main())
