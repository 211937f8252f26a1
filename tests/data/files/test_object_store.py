"""Files in an object store: a real S3-compatible server (moto in server mode, its own process on 127.0.0.1
and a free port, always stopped) holds the same files as a local directory, and every method reads them
through the same route: fit, predict and evaluate give what the local files give; a wrong access key, a
missing bucket or object and an object deleted or changed between passes are ValueErrors naming the URL."""

from __future__ import annotations

import contextlib
import io
import json
import subprocess
import sys
import urllib.request

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from nbparallel import Files, NaiveBayes
from nbparallel.data.files.readers import read_files
from nbparallel.data.files.filesystems import Store, write_table
from nbparallel.data.files.listing import list_files
from nbparallel.data.inputs import as_dataset
from nbparallel.engine.execution import local_below, map_partitions
from nbparallel.engine.recipes import Read
from tests.dask_processes import free_port
from tests.waiting import wait_until

BUCKET = "nbparallel-data"


def _wait_until_up(url, proc, seconds=60):
    def answers():
        if proc.poll() is not None:
            raise RuntimeError(f"the moto server exited with status {proc.returncode}")
        try:
            urllib.request.urlopen(url, timeout=1).read()
            return True
        except OSError:
            return False
    wait_until(answers, seconds, f"the moto server answering at {url}", interval=0.1)


@pytest.fixture(scope="module")
def s3():
    """``(storage_options, boto3 client)`` of a moto S3 server with one bucket, and an IAM user whose key
    is the one accepted while :func:`credentials_enforced`."""
    import boto3

    port = free_port()
    endpoint = f"http://127.0.0.1:{port}"
    proc = subprocess.Popen([sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        _wait_until_up(f"{endpoint}/moto-api/data.json", proc)
        setup = {"endpoint_url": endpoint, "region_name": "us-east-1", "aws_access_key_id": "setup",
                 "aws_secret_access_key": "setup"}
        iam = boto3.client("iam", **setup)
        iam.create_user(UserName="reader")
        iam.put_user_policy(UserName="reader", PolicyName="all", PolicyDocument=json.dumps(
            {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*"}]}))
        key = iam.create_access_key(UserName="reader")["AccessKey"]
        client = boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1",
                              aws_access_key_id=key["AccessKeyId"], aws_secret_access_key=key["SecretAccessKey"])
        client.create_bucket(Bucket=BUCKET)
        options = {"key": key["AccessKeyId"], "secret": key["SecretAccessKey"],
                   "client_kwargs": {"endpoint_url": endpoint, "region_name": "us-east-1"}}
        yield options, client
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)


@pytest.fixture(scope="module")
def frame():
    rng = np.random.default_rng(11)
    n = 3000
    x = rng.normal(size=n)
    x[::89] = np.nan
    colour = rng.choice(["red", "green", "blue"], n).astype(object)
    colour[::61] = None
    y = np.where((x > 0) ^ (rng.random(n) < 0.2), "yes", "no")
    return pd.DataFrame({"x": x, "k": rng.integers(0, 5, n), "colour": colour,
                         "size": rng.choice(["s", "m", "l"], n), "y": y})


def _upload(client, local, prefix):
    for path in sorted(local.iterdir()):
        client.upload_file(str(path), BUCKET, f"{prefix}/{path.name}")
    return f"s3://{BUCKET}/{prefix}"


@pytest.fixture(scope="module")
def stored(s3, frame, tmp_path_factory):
    """Local directories of Parquet and CSV files, and their URLs in the store."""
    _, client = s3
    root = tmp_path_factory.mktemp("local")
    (root / "pq").mkdir()
    (root / "csv").mkdir()
    for i, rows in enumerate(np.array_split(np.arange(len(frame)), 4)):
        pq.write_table(pa.Table.from_pandas(frame.iloc[rows], preserve_index=False), root / "pq" / f"p{i}.parquet",
                       row_group_size=300)
        frame.iloc[rows].to_csv(root / "csv" / f"p{i}.csv", index=False, sep=";")
    return {"parquet": (root / "pq", _upload(client, root / "pq", "pq")),
            "csv": (root / "csv", _upload(client, root / "csv", "csv"))}


@pytest.mark.parametrize("kind, in_tasks", [("parquet", False), ("parquet", True), ("csv", True)])
def test_fit_predict_and_evaluate_equal_the_local_files(s3, stored, kind, in_tasks):
    options, _ = s3
    local, url = stored[kind]
    delimiter = ";" if kind == "csv" else None
    with local_below(0) if in_tasks else local_below(2**30):  # read in tasks, or (small Parquet) at once
        # (CSV files are always read in tasks)
        expected = NaiveBayes().fit(Files(local, delimiter=delimiter), "y")
        model = NaiveBayes().fit(Files(url, storage_options=options, delimiter=delimiter), "y")
        assert model.counts_.equals(expected.counts_)
        assert model.schema_.attributes == expected.schema_.attributes
        remote = Files(url + "/", storage_options=options, delimiter=delimiter)
        np.testing.assert_array_equal(model.predict(remote), expected.predict(Files(local, delimiter=delimiter)))
        np.testing.assert_equal(model.evaluate(remote, "y"), expected.evaluate(Files(local, delimiter=delimiter), "y"))
    split = NaiveBayes(n_partitions=7).fit(Files(url, storage_options=options, delimiter=delimiter), "y")
    assert split.counts_.equals(expected.counts_)


def test_cross_validation_and_selection_take_the_url(s3, stored):
    from nbparallel import SelectedNaiveBayes, cross_validate

    options, _ = s3
    local, url = stored["parquet"]
    remote = Files(url, storage_options=options)
    scores, expected = (cross_validate(NaiveBayes(), data, "y", cv=3) for data in (remote, local))
    assert scores.keys() == expected.keys()
    for key in scores.keys() - {"passes", "folds"}:  # the passes' records hold wall times
        np.testing.assert_equal(scores[key], expected[key])
    chosen = SelectedNaiveBayes(max_features=2).fit(remote, "y")
    assert chosen.selected_features_ == SelectedNaiveBayes(max_features=2).fit(local, "y").selected_features_


def test_a_single_object_and_read_files(s3, stored, frame):
    options, _ = s3
    local, url = stored["parquet"]
    one = Files(f"{url}/p1.parquet", storage_options=options)
    files, kind = list_files(one)
    assert kind == "parquet" and [str(f) for f in files] == [f"{url}/p1.parquet"]
    assert files[0].size == (local / "p1.parquet").stat().st_size
    got = read_files(Files(url, storage_options=options)).compute().reset_index(drop=True)
    pd.testing.assert_frame_equal(got.astype({"colour": object, "size": object, "y": object}),
                                  frame.reset_index(drop=True), check_dtype=False)


def test_dask_read_parquet_of_a_url_is_counted_from_its_files(s3, stored):
    import dask.dataframe as dd

    from nbparallel.data.inputs import parquet_files_read_by

    options, _ = s3
    local, url = stored["parquet"]
    ddf = dd.read_parquet(url, storage_options=options)
    files = parquet_files_read_by(ddf)
    assert isinstance(files, Files) and files.path == url and files.store == Store("s3", options)
    assert NaiveBayes().fit(ddf, "y").counts_.equals(NaiveBayes().fit(local, "y").counts_)


def test_dask_worker_processes_read_the_store_in_their_tasks(s3, stored):
    from distributed import Client, LocalCluster

    options, _ = s3
    local, url = stored["parquet"]
    expected = NaiveBayes().fit(local, "y")
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            Client(cluster) as client:
        dataset = as_dataset(Files(url, storage_options=options), "y")  # small, but read by the workers
        assert all(isinstance(p, Read) for p in dataset.partitions)
        model = NaiveBayes().fit(Files(url, storage_options=options), "y")
        assert any("nbparallel-read" in str(key) for key in client.run_on_scheduler(
            lambda dask_scheduler: list(dask_scheduler.task_prefixes)))
    assert model.counts_.equals(expected.counts_)


@contextlib.contextmanager
def credentials_enforced(options):
    """Every request to the server authenticated while inside: only the IAM user's key is accepted.

    (moto checks the signatures of s3fs's listings with a delimiter wrongly, so the other tests run
    without it: https://github.com/getmoto/moto signs them differently from botocore.)
    """
    endpoint = options["client_kwargs"]["endpoint_url"]

    def no_auth_actions(count):
        urllib.request.urlopen(urllib.request.Request(f"{endpoint}/moto-api/reset-auth", data=count.encode(),
                                                      method="POST", headers={"Content-Type": "text/plain"}))

    no_auth_actions("0")
    try:
        yield
    finally:
        no_auth_actions("inf")


def test_a_wrong_key_is_refused_naming_the_url(s3, stored):
    options, _ = s3
    local, url = stored["parquet"]
    one = f"{url}/p2.parquet"
    wrong = {**options, "secret": "not-the-secret"}
    unknown = {**options, "key": "AKIANOBODY", "secret": "x"}
    with credentials_enforced(options):
        model = NaiveBayes().fit(Files(one, storage_options=options), "y")  # the right key reads it
        with pytest.raises(ValueError, match=rf"cannot read '{one}': access refused; check the credentials"):
            NaiveBayes().fit(Files(one, storage_options=wrong), "y")
        with pytest.raises(ValueError, match=rf"'{url}': access refused"):
            NaiveBayes().fit(Files(url, storage_options=unknown), "y")
    assert model.counts_.equals(NaiveBayes().fit(local / "p2.parquet", "y").counts_)


def test_a_missing_bucket_or_object_is_named(s3):
    options, _ = s3
    with pytest.raises(ValueError, match=r"cannot read 's3://no-such-bucket/data': it does not exist"):
        NaiveBayes().fit(Files("s3://no-such-bucket/data", storage_options=options), "y")
    with pytest.raises(ValueError, match=rf"cannot read 's3://{BUCKET}/pq/nothing.parquet': it does not exist"):
        NaiveBayes().fit(Files(f"s3://{BUCKET}/pq/nothing.parquet", storage_options=options), "y")


@pytest.mark.parametrize("change", ["deleted", "rewritten"])
def test_an_object_deleted_or_changed_between_passes_is_an_error(s3, frame, tmp_path, change):
    options, client = s3
    local = tmp_path / "one"
    local.mkdir()
    frame.to_parquet(local / "a.parquet", index=False)
    frame.iloc[:100].to_parquet(local / "b.parquet", index=False)
    url = _upload(client, local, f"changing-{change}")
    with local_below(0):  # read in tasks: the listing is made now, the rows are read by each pass
        dataset = as_dataset(Files(url, storage_options=options), "y")
    if change == "deleted":
        client.delete_object(Bucket=BUCKET, Key=f"changing-{change}/b.parquet")
        message = rf"file '{url}/b.parquet' was deleted .*after the data was listed"
    else:
        frame.iloc[:50].to_parquet(local / "b.parquet", index=False)
        client.upload_file(str(local / "b.parquet"), BUCKET, f"changing-{change}/b.parquet")
        message = rf"file '{url}/b.parquet' changed after the data was listed"
    with pytest.raises(ValueError, match=message):
        map_partitions(dataset.partitions, lambda part: part)


def test_write_table_to_the_store_and_to_disk(s3, frame, tmp_path):
    options, client = s3
    url = f"s3://{BUCKET}/out/predictions.parquet"
    assert write_table(frame, url, storage_options=options) == url
    body = client.get_object(Bucket=BUCKET, Key="out/predictions.parquet")["Body"].read()
    pd.testing.assert_frame_equal(pq.read_table(pa.BufferReader(body)).to_pandas(), frame)
    write_table(frame, f"s3://{BUCKET}/out/predictions.csv", storage_options=options)
    body = client.get_object(Bucket=BUCKET, Key="out/predictions.csv")["Body"].read()
    assert body.decode().splitlines()[0] == '"x","k","colour","size","y"'
    write_table(frame.iloc[:5], tmp_path / "p.csv")
    assert [p.name for p in tmp_path.iterdir()] == ["p.csv"]  # written beside, then renamed: no leftovers
    pd.testing.assert_frame_equal(pd.read_csv(tmp_path / "p.csv"), frame.iloc[:5], check_dtype=False)
    with pytest.raises(ValueError, match=r"cannot write .*no-dir.*does not exist"):
        write_table(frame, tmp_path / "no-dir" / "p.csv")
    with pytest.raises(ValueError, match=r"cannot write 's3://no-such-bucket/p.csv'"):
        write_table(frame, "s3://no-such-bucket/p.csv", storage_options=options)


def test_memory_urls_and_option_errors(frame, tmp_path):
    import fsspec

    fs = fsspec.filesystem("memory")
    with fs.open("/nbparallel-test/d.csv", "w") as f:
        frame.to_csv(f, index=False)
    model = NaiveBayes().fit("memory://nbparallel-test/d.csv", "y")
    assert model.counts_.equals(NaiveBayes().fit(frame, "y").counts_)
    fs.rm("/nbparallel-test", recursive=True)
    with pytest.raises(ValueError, match=r"storage_options \['anon'\] are for URLs .* is a local path"):
        Files(tmp_path, storage_options={"anon": True})
    with pytest.raises(TypeError, match=r"storage_options must be a dict"):
        Files("s3://bucket/x", storage_options=["anon"])
    with pytest.raises(ValueError, match=r"unknown filesystem protocol 'nosuchstore'"):
        NaiveBayes().fit("nosuchstore://bucket/d.csv", "y")
    assert "secret" not in repr(Files("s3://b/x", storage_options={"secret": "hush"}).path)
    assert "hush" not in repr(Files("s3://b/x", storage_options={"secret": "hush"}))


def test_the_command_line_predicts_from_and_to_the_store(s3, stored, frame, tmp_path):
    """nbparallel predict takes a URL for DATA and -o (a file, or a directory of one file per partition), with
    --storage-option; the predictions equal the local model's."""
    from nbparallel.cli import main

    options, client = s3
    local, url = stored["parquet"]
    flags = ["--storage-option", f"key={options['key']}", "--storage-option", f"secret={options['secret']}",
             "--storage-option", f"endpoint_url={options['client_kwargs']['endpoint_url']}"]
    model = NaiveBayes().fit(local, "y")
    model.save(tmp_path / "m.json")
    expected = model.predict(frame).tolist()
    assert main(["predict", str(tmp_path / "m.json"), url, "-o", f"s3://{BUCKET}/cli/p.csv", "--quiet", *flags]) == 0
    body = client.get_object(Bucket=BUCKET, Key="cli/p.csv")["Body"].read()
    assert pd.read_csv(io.BytesIO(body))["prediction"].tolist() == expected
    assert main(["predict", str(tmp_path / "m.json"), url, "-o", f"s3://{BUCKET}/cli/parts/", "--quiet", *flags]) == 0
    keys = sorted(o["Key"] for o in client.list_objects_v2(Bucket=BUCKET, Prefix="cli/parts/")["Contents"])
    assert keys == [f"cli/parts/part-{i:05d}.parquet" for i in range(len(keys))] and len(keys) == 4
    parts = [pd.read_parquet(io.BytesIO(client.get_object(Bucket=BUCKET, Key=k)["Body"].read())) for k in keys]
    assert pd.concat(parts)["prediction"].tolist() == expected
