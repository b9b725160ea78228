"""The container image and the Kubernetes manifests agree with each other, with
`deploy/dagster.yaml` and with the package: no Docker engine or cluster runs here, so every
name, path, port and setting they share is checked instead, and the image's command is run."""

from __future__ import annotations

import json
import os
import re
import shlex
import signal
import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path

import yaml

from tests.conftest import ROOT
from tests.servers import free_port

DEPLOY = ROOT / "deploy"


def dockerfile() -> list[tuple[str, str]]:
    """(instruction, arguments) of each line of the Dockerfile, continuations joined."""
    text = re.sub(r"\\\n", " ", (ROOT / "Dockerfile").read_text(encoding="utf-8"))
    lines = [line.strip() for line in text.splitlines()]
    return [tuple(line.split(None, 1)) for line in lines if line and not line.startswith("#")]


def manifests() -> dict[tuple[str, str], dict]:
    """What `kubectl apply -k deploy/` creates: the resources the kustomization lists, and the
    ConfigMaps it generates (their data as kustomize reads the files)."""
    kustomization = yaml.safe_load((DEPLOY / "kustomization.yaml").read_text(encoding="utf-8"))
    assert kustomization["generatorOptions"]["disableNameSuffixHash"] is True
    found = {}
    for resource in kustomization["resources"]:
        for d in yaml.safe_load_all((DEPLOY / resource).read_text(encoding="utf-8")):
            found[(d["kind"], d["metadata"]["name"])] = d
    for generator in kustomization["configMapGenerator"]:
        data = {}
        for name in generator.get("envs", []):
            data |= env_file(DEPLOY / name)
        for name in generator.get("files", []):
            data[name] = (DEPLOY / name).read_text(encoding="utf-8")
        found[("ConfigMap", generator["name"])] = {"data": data}
    return found


def env_file(path: Path) -> dict[str, str]:
    lines = path.read_text(encoding="utf-8").splitlines()
    return dict(line.split("=", 1) for line in lines if line.strip() and not line.startswith("#"))


def env_example() -> dict[str, str]:
    return env_file(DEPLOY / "prweekly.env.example")


def instance() -> dict:
    return yaml.safe_load((DEPLOY / "dagster.yaml").read_text(encoding="utf-8"))


def test_the_image_copies_files_that_exist_and_installs_the_package_not_a_checkout() -> None:
    steps = dockerfile()
    copied = [args.split()[:-1] for step, args in steps if step == "COPY"]
    sources = [source for group in copied for source in group]
    assert sources and [s for s in sources if not (ROOT / s).exists()] == []
    assert {"pyproject.toml", "README.md", "orchestration", "sql"} <= set(sources)
    (install,) = [args for step, args in steps if step == "RUN" and "pip install" in args]
    assert '".[deploy]"' in install and " -e " not in install and "dagster-k8s" in install
    assert "rm -rf /build" in install  # the source is gone: only the installed package runs
    env = dict(pair.split("=", 1) for step, args in steps if step == "ENV" for pair in args.split())
    assert env["PRWEEKLY_HOME"] == env_example()["PRWEEKLY_HOME"]
    assert env["DAGSTER_HOME"] == env["PRWEEKLY_HOME"] + "/dagster"  # where prweekly puts it


def test_the_image_command_serves_the_code_location(tmp_path: Path) -> None:
    steps = dockerfile()
    command = json.loads(next(args for step, args in steps if step == "CMD"))
    assert command[0] in {e.name for e in entry_points(group="console_scripts")}
    module = command[command.index("--module-name") + 1]
    port = int(command[command.index("--port") + 1])
    assert [args for step, args in steps if step == "EXPOSE"] == [str(port)]
    service = manifests()[("Service", "prweekly-code-location")]
    assert service["spec"]["ports"][0]["targetPort"] == port

    # The same command, on a free loopback port here, answers Dagster's health check.
    local = [*command[: command.index("--host")], "--host", "127.0.0.1", "--port", str(free_port())]
    server = subprocess.Popen(
        [str(Path(sys.executable).parent / local[0]), *local[1:]],
        cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
        start_new_session=True,  # the code server starts its own gRPC child: stop both
    )  # fmt: skip
    try:
        check = [str(Path(sys.executable).parent / "dagster"), "api", "grpc-health-check"]
        for _ in range(120):
            ok = subprocess.run([*check, "--port", local[-1]], capture_output=True, cwd=tmp_path)
            if ok.returncode == 0 or server.poll() is not None:
                break
            subprocess.run(["sleep", "0.5"])
        assert server.poll() is None, server.stderr.read()
        assert ok.returncode == 0, shlex.join(local)
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(30)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait()
    assert module == "orchestration.service.definitions"


def test_the_manifests_hold_every_name_the_instance_configuration_refers_to() -> None:
    objects = manifests()
    launcher = instance()["run_launcher"]["config"]
    assert ("ServiceAccount", launcher["service_account_name"]) in objects
    for name in launcher["env_config_maps"]:
        assert ("ConfigMap", name) in objects
    claims = [v["persistentVolumeClaim"]["claimName"] for v in launcher["volumes"] if
              "persistentVolumeClaim" in v]  # fmt: skip
    maps = [v["configMap"]["name"] for v in launcher["volumes"] if "configMap" in v]
    assert [c for c in claims if ("PersistentVolumeClaim", c) not in objects] == []
    assert [m for m in maps if ("ConfigMap", m) not in objects] == []

    # The code location mounts what the run pods mount, at the same places.
    pod = objects[("Deployment", "prweekly-code-location")]["spec"]["template"]["spec"]
    mounts = {m["mountPath"]: m.get("subPath") for m in pod["containers"][0]["volumeMounts"]}
    assert mounts == {m["mount_path"]: m.get("sub_path") for m in launcher["volume_mounts"]}
    assert pod["serviceAccountName"] == launcher["service_account_name"]
    sources = pod["containers"][0]["envFrom"]
    assert [s["configMapRef"]["name"] for s in sources if "configMapRef" in s] == launcher[
        "env_config_maps"
    ]
    assert [s["secretRef"]["name"] for s in sources if "secretRef" in s] == launcher["env_secrets"]


def test_the_settings_name_every_variable_the_instance_reads() -> None:
    objects = manifests()
    settings = objects[("ConfigMap", "prweekly-settings")]["data"]
    assert yaml.safe_load(objects[("ConfigMap", "dagster-instance")]["data"]["dagster.yaml"]) == (
        instance()
    )
    home = settings["PRWEEKLY_HOME"]
    launcher = instance()["run_launcher"]["config"]
    assert {m["mount_path"] for m in launcher["volume_mounts"]} == {
        home,
        f"{home}/dagster/dagster.yaml",
    }
    read = set(re.findall(r"env: (\w+)", (DEPLOY / "dagster.yaml").read_text(encoding="utf-8")))
    secret = (DEPLOY / "prweekly.env.example").read_text(encoding="utf-8").split("Secret")[1]
    assert read and [n for n in sorted(read) if n not in settings and n not in secret] == []
