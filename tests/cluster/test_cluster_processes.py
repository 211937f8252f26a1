"""Fits and clients against real scheduler and worker processes on 127.0.0.1."""

import datetime
import ipaddress
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from nbparallel import load
from nbparallel.cli import main
from nbparallel.cluster import client_for, connect
from tests.dask_processes import dask_cluster, sigkill
from tests.waiting import wait_until

N_FILES, ROWS_PER_FILE = 24, 40_000
ONE_PER_FILE = ("--partitions", str(N_FILES))  # small files are grouped by default; here each is a task


def _certificate(subject, issuer, issuer_key, public_key, ca):
    now = datetime.datetime.now(datetime.timezone.utc)
    builder = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, subject)]))
        .issuer_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, issuer)]))
        .public_key(public_key)
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
    )
    if not ca:
        builder = builder.add_extension(x509.SubjectAlternativeName([
            x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
            critical=False,
        ).add_extension(x509.ExtendedKeyUsage([
            ExtendedKeyUsageOID.SERVER_AUTH, ExtendedKeyUsageOID.CLIENT_AUTH]), critical=False)
    return builder.sign(issuer_key, hashes.SHA256())


def make_tls_files(directory, name):
    """A CA and a certificate signed by it for 127.0.0.1/localhost, as PEM files."""
    ca_key, key = ec.generate_private_key(ec.SECP256R1()), ec.generate_private_key(ec.SECP256R1())
    ca = _certificate(f"{name} CA", f"{name} CA", ca_key, ca_key.public_key(), ca=True)
    cert = _certificate("dask", f"{name} CA", ca_key, key.public_key(), ca=False)
    files = {"ca_file": directory / f"{name}-ca.pem", "cert": directory / f"{name}.pem",
             "key": directory / f"{name}-key.pem"}
    files["ca_file"].write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    files["cert"].write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    files["key"].write_bytes(key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption()))
    return {k: str(v) for k, v in files.items()}


@pytest.fixture(scope="module")
def cluster():
    """A scheduler and two single-threaded workers over TCP."""
    with dask_cluster(n_workers=2, nthreads=1) as processes:
        yield processes


@pytest.fixture(scope="module")
def tls_dir(tmp_path_factory):
    directory = tmp_path_factory.mktemp("tls")
    make_tls_files(directory, "good")
    make_tls_files(directory, "rogue")
    return directory


@pytest.fixture(scope="module")
def tls_cluster(tls_dir):
    """A scheduler and one worker that accept only certificates of the "good" CA."""
    files = {k: str(tls_dir / v) for k, v in
             {"ca_file": "good-ca.pem", "cert": "good.pem", "key": "good-key.pem"}.items()}
    with dask_cluster(n_workers=1, tls=files) as processes:
        yield processes


def tls_config(directory, address, ca, cert, timeout=3):
    """A kind: scheduler config with paths relative to its own directory."""
    path = directory / f"{cert}.yaml"
    path.write_text(
        f"kind: scheduler\ntimeout: {timeout}\noptions:\n  address: {address}\n"
        f"security:\n  ca_file: {ca}-ca.pem\n  cert: {cert}.pem\n  key: {cert}-key.pem\n")
    return path


def test_client_for_a_running_scheduler(cluster):
    with client_for(scheduler=cluster.address) as client:
        assert len(client.scheduler_info()["workers"]) == 2
        futures = client.map(pow, range(20), [2] * 20)
        assert sum(client.gather(futures)) == sum(i * i for i in range(20))
    assert client.status == "closed"


def test_tls_client_with_certificates_computes(tls_cluster, tls_dir):
    assert tls_cluster.address.startswith("tls://")
    with client_for(cluster=tls_config(tls_dir, tls_cluster.address, "good", "good")) as client:
        assert client.submit(sum, [1, 2, 3]).result() == 6


@pytest.mark.parametrize("how", ["rogue certificate", "plain tcp"])
def test_tls_scheduler_refuses_clients_without_certificates(tls_cluster, tls_dir, how):
    if how == "plain tcp":
        address = tls_cluster.address.replace("tls://", "tcp://")
        path = tls_dir / "plain.yaml"
        path.write_text(f"kind: scheduler\ntimeout: 30\noptions: {{address: '{address}'}}\n")
    else:
        address = tls_cluster.address
        path = tls_config(tls_dir, address, "good", "rogue", timeout=30)  # trusts the scheduler
    with pytest.raises(ConnectionError, match=address) as info:
        connect(path)
    message = str(info.value).lower()
    # refused during the handshake, not waited out: a timeout would say so after 30 s
    assert "timed out" not in message and "timeout 30 s" in message
    if how == "rogue certificate":
        assert "unknown ca" in message or "ssl" in message  # the scheduler said no


@pytest.fixture(scope="module")
def csv_dir(tmp_path_factory):
    """A directory of CSV files; each is read inside the task that counts it."""
    directory = tmp_path_factory.mktemp("csv")
    rng = np.random.default_rng(0)
    for i in range(N_FILES):
        label = rng.integers(0, 3, ROWS_PER_FILE)
        frame = pd.DataFrame({f"c{j}": (rng.integers(0, 5, ROWS_PER_FILE) + label * j) % 7
                              for j in range(4)}
                             | {f"x{j}": rng.normal(label, 1.0 + j, ROWS_PER_FILE) for j in range(4)}
                             | {"label": label})
        frame.to_csv(directory / f"part-{i:03d}.csv", index=False)
    return directory


@pytest.fixture(scope="module")
def local_model(csv_dir, tmp_path_factory):
    """The fault-free fit on the local threaded scheduler (no cluster option)."""
    path = tmp_path_factory.mktemp("local") / "model.json"
    assert main(["fit", str(csv_dir), "--target", "label", "-o", str(path), "--quiet", *ONE_PER_FILE]) == 0
    return load(path)


def assert_same_counts(model, reference):
    np.testing.assert_array_equal(model.counts_.table, reference.counts_.table)
    np.testing.assert_array_equal(model.counts_.class_totals, reference.counts_.class_totals)
    assert model.reduction_.n_leaves == N_FILES


def start_fit(data, output, *options):
    """``nbparallel fit`` in a subprocess, as a user runs it."""
    return subprocess.Popen(
        [sys.executable, "-c", "import sys; from nbparallel.cli import main; sys.exit(main())",
         "fit", str(data), "--target", "label", "-o", str(output), "--quiet", *ONE_PER_FILE, *options],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def wait_until_processing(address, workers, fit, timeout=60):
    """Block until every worker in ``workers`` (names) runs a task of the fit."""
    from distributed import Client

    def processing_or_ended():
        if fit.poll() is not None:
            raise AssertionError(f"workers {workers} never ran a task; fit exited with {fit.poll()}")
        names = {a: w["name"] for a, w in observer.scheduler_info()["workers"].items()}
        busy = {names.get(a) for a, keys in observer.processing().items() if keys}
        return set(workers) <= busy

    with Client(address, timeout=10, set_as_default=False) as observer:
        wait_until(processing_or_ended, timeout, f"workers {workers} running a task of the fit", interval=0.01)


def test_cli_fit_on_scheduler_matches_local_fit(cluster, csv_dir, local_model, tmp_path):
    path = tmp_path / "model.json"
    assert main(["fit", str(csv_dir), "--target", "label", "-o", str(path), "--quiet", *ONE_PER_FILE,
                 "--scheduler", cluster.address]) == 0
    assert_same_counts(load(path), local_model)


def test_fit_survives_a_killed_worker(csv_dir, local_model, tmp_path):
    output = tmp_path / "model.json"
    with dask_cluster(n_workers=2, nthreads=1) as (address, workers):
        fit = start_fit(csv_dir, output, "--scheduler", address)
        wait_until_processing(address, ["worker-0"], fit)
        assert sigkill(workers[0]) == -9
        assert fit.poll() is None, "the fit ended before the worker died"
        out, err = fit.communicate(timeout=120)
    assert fit.returncode == 0, err
    assert_same_counts(load(output), local_model)


def test_fit_without_any_worker_fails_and_writes_no_model(csv_dir, tmp_path):
    output = tmp_path / "model.json"
    with dask_cluster(n_workers=2, nthreads=1) as (address, workers):
        config = tmp_path / "cluster.yaml"
        config.write_text(f"kind: scheduler\nno_workers_timeout: 1\n"
                          f"options: {{address: '{address}'}}\n")
        fit = start_fit(csv_dir, output, "--cluster", str(config))
        wait_until_processing(address, ["worker-0", "worker-1"], fit)
        assert scheduler_no_workers_timeout(address) is None  # the fit does not change the shared scheduler
        assert [sigkill(w) for w in workers] == [-9, -9]
        assert fit.poll() is None, "the fit ended before the workers died"
        # without the watch the fit would wait for ever: the 60 s guard fails it then
        out, err = fit.communicate(timeout=60)
        assert scheduler_no_workers_timeout(address) is None
    assert fit.returncode == 2
    assert "without any running workers for 1 s" in err.strip().splitlines()[-1] and "Traceback" not in err, err
    assert not output.exists()


def scheduler_no_workers_timeout(address):
    from distributed import Client

    with Client(address, timeout=10, set_as_default=False) as observer:
        return observer.run_on_scheduler(_no_workers_timeout)


def _no_workers_timeout(dask_scheduler=None):
    return dask_scheduler.no_workers_timeout


def test_killed_fit_leaves_the_scheduler_unchanged(cluster, csv_dir, tmp_path):
    fit = start_fit(csv_dir, tmp_path / "model.json", "--scheduler", cluster.address)
    wait_until_processing(cluster.address, ["worker-0"], fit)  # the fit is connected and running
    assert sigkill(fit) == -9
    assert scheduler_no_workers_timeout(cluster.address) is None
