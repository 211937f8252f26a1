"""The YAML files in ``cluster_configs/`` and :mod:`nbparallel.cluster`."""

import math
import re
import subprocess
import sys
from pathlib import Path

import pytest
from dask.utils import parse_bytes

from nbparallel.cli import main
from nbparallel.cluster import client_for, connect, load_config, render_job_script
from tests.dask_processes import free_port

CONFIGS = sorted((Path(__file__).resolve().parents[2] / "cluster_configs").glob("*.yaml"))


def write(tmp_path, text, name="cluster.yaml"):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_every_way_of_getting_a_cluster_has_a_config():
    names = {p.stem for p in CONFIGS}
    assert names == {"local", "scheduler", "ssh", "slurm", "pbs", "kubernetes", "tls", "spark", "ray"}


@pytest.mark.parametrize("path", CONFIGS, ids=lambda p: p.name)
def test_shipped_configs_load(path):
    config = load_config(path)
    assert config["kind"] == {"tls": "scheduler"}.get(path.stem, path.stem)
    assert config["timeout"] > 0
    assert "#" in path.read_text()  # documented in place


def test_tls_config_resolves_security_files():
    config = load_config(CONFIGS[[p.stem for p in CONFIGS].index("tls")])
    assert config["options"]["address"].startswith("tls://")
    assert set(config["security"]) == {"ca_file", "cert", "key"}


def test_misspelt_option_names_file_key_and_accepted_keys(tmp_path):
    path = write(tmp_path, "kind: local\noptions:\n  n_worker: 2\n")
    with pytest.raises(ValueError) as info:
        load_config(path)
    message = str(info.value)
    assert str(path) in message and "'n_worker'" in message
    assert "did you mean 'n_workers'" in message and "threads_per_worker" in message


@pytest.mark.parametrize("text, key", [
    ("kind: local\ntimout: 3\n", "'timout'"),
    ("kind: cloud\n", "'kind'"),
    ("options: {}\n", "'kind'"),
    ("kind: local\ntimeout: -1\n", "'timeout'"),
    ("kind: local\nno_workers_timeout: 0\n", "'no_workers_timeout'"),
    ("kind: scheduler\noptions: {address: 127.0.0.1:8786}\n", "'options.address'"),
    ("kind: scheduler\noptions: {address: 'tls://h:1'}\nsecurity: {ca_file: a, cert: b}\n",
     "'security.key'"),
    ("kind: scheduler\noptions: {address: 'tcp://h:1'}\n"
     "security: {ca_file: a, cert: b, key: c}\n", "'security'"),
    ("kind: spark\noptions: {master: 'local(2)'}\n", "'options.master'"),
    ("kind: spark\noptions: {master: 'local[2]', conf: [a]}\n", "'options.conf'"),
    ("kind: spark\noptions: {master: 'local[2]', executors: 2}\n", "'executors'"),
    ("kind: ray\noptions: {address: 'head'}\n", "'options.address'"),
    ("kind: ray\noptions: {address: 'auto', num_cpus: 2}\n", "'options.num_cpus'"),
    ("kind: ray\noptions: {address: 'local', num_cpus: 0}\n", "'options.num_cpus'"),
])
def test_invalid_keys_are_named(tmp_path, text, key):
    path = write(tmp_path, text)
    with pytest.raises(ValueError, match=str(path)) as info:
        load_config(path)
    assert key in str(info.value)


@pytest.mark.parametrize("name", ["spark", "ray"])
def test_an_engine_config_is_no_dask_cluster(name):
    with pytest.raises(ValueError, match=f"kind '{name}' is no Dask cluster"):
        connect(CONFIGS[[p.stem for p in CONFIGS].index(name)])


def test_missing_file(tmp_path):
    with pytest.raises(FileNotFoundError, match="nope.yaml"):
        load_config(tmp_path / "nope.yaml")


def test_invalid_yaml(tmp_path):
    path = write(tmp_path, "kind: local\noptions: [unclosed\n")
    with pytest.raises(ValueError, match=f"{path}: invalid YAML"):
        load_config(path)


@pytest.mark.parametrize("name, lines", [
    ("slurm", lambda o: [f"#SBATCH -p {o['queue']}", f"#SBATCH --cpus-per-task={o['cores']}",
                         f"#SBATCH --mem={math.ceil(parse_bytes(o['memory']) / 2**30)}G",
                         f"#SBATCH -t {o['walltime']}"]),
    ("pbs", lambda o: [f"#PBS -q {o['queue']}",
                       f"#PBS -l select=1:ncpus={o['cores']}:"
                       f"mem={parse_bytes(o['memory']) // 2**30}GB",
                       f"#PBS -l walltime={o['walltime']}"]),
])
def test_batch_configs_render_job_scripts(name, lines):
    path = CONFIGS[[p.stem for p in CONFIGS].index(name)]
    script = render_job_script(path)
    for line in lines(load_config(path)["options"]):
        assert line in script.splitlines()
    assert "distributed.cli.dask_worker" in script


@pytest.mark.parametrize("name, module, extra", [
    ("slurm", "dask_jobqueue", "nbparallel[jobqueue]"),
    ("kubernetes", "dask_kubernetes", "nbparallel[kubernetes]"),
])
def test_missing_back_end_names_the_extra(monkeypatch, name, module, extra):
    monkeypatch.setitem(sys.modules, module, None)  # makes the import fail
    with pytest.raises(ImportError, match=re.escape(f"pip install {extra}")):
        connect(CONFIGS[[p.stem for p in CONFIGS].index(name)])


def test_local_config_starts_a_cluster(capsys):
    with client_for(cluster=CONFIGS[[p.stem for p in CONFIGS].index("local")]) as client:
        cluster = client.cluster
        assert len(client.scheduler_info()["workers"]) == 2
        assert client.submit(sum, [1, 2, 3]).result() == 6
    assert client.status == "closed" and cluster.status.name == "closed"
    assert "Dask dashboard: http" in capsys.readouterr().err


def test_no_scheduler_means_no_client():
    with client_for() as client:
        assert client is None
    with pytest.raises(ValueError, match="not both"):
        with client_for(scheduler="tcp://127.0.0.1:1", cluster="local.yaml"):
            pass


def test_unreachable_scheduler_fails_within_timeout(tmp_path):
    address = f"tcp://127.0.0.1:{free_port()}"
    path = write(tmp_path, f"kind: scheduler\ntimeout: 2\noptions: {{address: '{address}'}}\n")
    with pytest.raises(ConnectionError, match=address) as info:
        connect(path)
    # the config's 2 s bounded the wait, not Dask's default 30 s
    assert "timeout 2 s" in str(info.value) and "after 2 s" in str(info.value), info.value
    assert str(path) in str(info.value)


@pytest.mark.parametrize("name, command", [("slurm", "sbatch"), ("pbs", "qsub")])
def test_batch_kind_without_its_submit_command_fails_at_once(monkeypatch, capsys, tmp_path, name, command):
    monkeypatch.setenv("PATH", str(tmp_path))  # no sbatch, no qsub
    with pytest.raises(FileNotFoundError, match=f"'{command}', which is not on this host's PATH"):
        connect(CONFIGS[[p.stem for p in CONFIGS].index(name)])
    assert main(["fit", str(tmp_path), "--target", "t", "-o", str(tmp_path / "m.json"), "--quiet",
                 "--cluster", str(CONFIGS[[p.stem for p in CONFIGS].index(name)])]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and command in err[0]


def test_scheduler_that_is_no_address_is_one_clear_error(tmp_path):
    data = tmp_path / "d.csv"
    data.write_text("a,t\n1,0\n2,1\n")
    done = subprocess.run([sys.executable, "-m", "nbparallel.cli", "fit", str(data), "--target", "t",
                           "-o", str(tmp_path / "m.json"), "--scheduler", "notanaddress"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    # a half-made distributed.Client used to print a __del__ traceback at exit
    assert done.stderr.strip().splitlines() == [
        "nbparallel fit: error: 'notanaddress' is not a Dask scheduler address like tcp://HOST:PORT "
        "(missing port number in address 'notanaddress')"], done.stderr
