"""deploy/kubernetes: every manifest valid against the Kubernetes schema (kubernetes-validate, offline), and every
option and environment variable the manifests give `tessera` one that it knows."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
KUBERNETES = ROOT / "deploy" / "kubernetes"
VERSION = "1.30.0"


def validate(*paths: Path) -> subprocess.CompletedProcess:
    tool = shutil.which("kubernetes-validate")
    if not tool:
        pytest.skip("kubernetes-validate is not installed (scripts/deps.sh installs it)")
    return subprocess.run([tool, "--strict", "-k", VERSION, *map(str, paths)], capture_output=True, text=True,
                          timeout=120)


def manifests() -> list[Path]:
    return sorted(path for path in KUBERNETES.glob("*.yaml") if path.name != "kustomization.yaml")


def test_every_manifest_is_valid_against_the_schema():
    checked = validate(*manifests())
    assert checked.returncode == 0, checked.stdout + checked.stderr
    passed = re.findall(r"passed for resource (\S+)", checked.stdout + checked.stderr)
    assert sorted(passed) == sorted([
        "configmap/tessera-config", "job/tessera-migrate", "deployment/tessera-public", "service/tessera-public",
        "poddisruptionbudget/tessera-public", "deployment/tessera-admin", "service/tessera-admin",
        "poddisruptionbudget/tessera-admin", "networkpolicy/tessera", "secret/tessera-secrets"])


def test_a_broken_manifest_is_refused(tmp_path):
    broken = tmp_path / "broken.yaml"
    broken.write_text((KUBERNETES / "public.yaml").read_text().replace("containerPort: 8080", "containerPort: web"))
    assert validate(broken).returncode != 0


@pytest.fixture
def server_binary() -> str:
    binary = os.environ.get("TESSERA_BIN")
    if not binary:
        pytest.skip("TESSERA_BIN is not set: run the suite through scripts/e2e.sh")
    return binary


def test_the_manifests_give_tessera_only_what_it_knows(server_binary):
    text = "\n".join(path.read_text() for path in manifests())
    serve_help = subprocess.run([server_binary, "serve", "--help"], capture_output=True, text=True, timeout=30)
    known = serve_help.stdout + serve_help.stderr
    for variable in set(re.findall(r"\b(TESSERA_[A-Z_]+)\b", text)):
        assert variable in known, f"{variable} is not an environment variable of tessera serve"
    for option in set(re.findall(r'"(--[a-z-]+)"', text)):
        assert option in known, f"{option} is not an option of tessera serve"
    for command in re.findall(r'args: \["([a-z]+)"', text):
        assert subprocess.run([server_binary, command, "--help"], capture_output=True, timeout=30).returncode == 0
