"""Object stores: a real S3-compatible server (PyPI's moto, the standalone server process
.ci/run installs) on 127.0.0.1; files uploaded to it read as the local copies do."""

import os
import pathlib
import shutil
import socket
import subprocess
import time
import urllib.request

import pytest

import colfile

from conftest import RCFILES, REPO, TSFILES, same


def moto_binary():
    env = os.environ.get("COLFILE_MOTO_SERVER")
    local = REPO / "target" / "moto-venv" / "bin" / "moto_server"
    for candidate in [env, str(local)]:
        if candidate and pathlib.Path(candidate).exists():
            return candidate
    if os.environ.get("CI"):
        pytest.fail("no moto server: .ci/run sets COLFILE_MOTO_SERVER")
    pytest.skip("no moto server (bash .ci/moto.sh installs one)")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# moto checks that a request is signed, not the signature.
AUTH = ("AWS4-HMAC-SHA256 Credential=test/20260101/us-east-1/s3/aws4_request, "
        "SignedHeaders=host, Signature=0000")


def put(url, body=b""):
    req = urllib.request.Request(url, data=body, method="PUT", headers={"Authorization": AUTH, "Content-Type": "application/octet-stream"})
    with urllib.request.urlopen(req) as r:
        assert r.status == 200


@pytest.fixture(scope="module")
def s3(tmp_path_factory):
    port = free_port()
    log = tmp_path_factory.mktemp("moto") / "moto.log"
    with open(log, "wb") as out:
        server = subprocess.Popen([moto_binary(), "-H", "127.0.0.1", "-p", str(port)],
                                  stdout=out, stderr=subprocess.STDOUT)
    endpoint = f"http://127.0.0.1:{port}"
    deadline = time.time() + 30
    while True:
        try:
            urllib.request.urlopen(endpoint + "/").close()
            break
        except OSError:
            if time.time() > deadline or server.poll() is not None:
                server.kill()
                raise RuntimeError("moto did not start: " + log.read_text())
            time.sleep(0.2)
    saved = {k: os.environ.get(k) for k in
             ["AWS_ENDPOINT_URL", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_REGION",
              "AWS_ALLOW_HTTP"]}
    os.environ.update(AWS_ENDPOINT_URL=endpoint, AWS_ACCESS_KEY_ID="test",
                      AWS_SECRET_ACCESS_KEY="test", AWS_REGION="us-east-1", AWS_ALLOW_HTTP="true")
    put(f"{endpoint}/pybucket")
    yield endpoint
    for k, v in saved.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v
    server.kill()
    server.wait()


def upload(endpoint, key, path):
    put(f"{endpoint}/pybucket/{key}", pathlib.Path(path).read_bytes())


def test_tsfiles_in_a_bucket_read_as_the_local_files(s3):
    upload(s3, "ts/one.tsfile", TSFILES / "many_devices.tsfile")
    upload(s3, "ts/dir/a.tsfile", TSFILES / "many_devices.tsfile")
    upload(s3, "ts/dir/b.tsfile", TSFILES / "many_devices.tsfile")
    upload(s3, "ts/dir/_SUCCESS", TSFILES / "basic.tsfile")
    local = colfile.read_tsfile(TSFILES / "many_devices.tsfile")
    assert colfile.read_tsfile("s3://pybucket/ts/one.tsfile").equals(local)
    both = colfile.read_tsfile("s3://pybucket/ts/dir/")
    assert both.num_rows == 2 * local.num_rows and both.slice(local.num_rows).equals(local)
    tag = next(f.name for f in local.schema if f.metadata.get(b"tsfile.category") == b"TAG")
    value = local[tag][0].as_py()
    remote = colfile.read_tsfile("s3://pybucket/ts/one.tsfile", tag_filter={tag: value}, limit=7)
    assert remote.equals(colfile.read_tsfile(TSFILES / "many_devices.tsfile",
                                             tag_filter={tag: value}, limit=7))
    from colfile.tsfile import TsFileReader

    assert TsFileReader("s3://pybucket/ts/one.tsfile").get_all_table_names() == ["fleet"]


def test_rcfiles_in_a_bucket_read_as_the_local_files(s3):
    import json

    d = json.loads((RCFILES / "multi_group_binary_deflate.json").read_text())
    schema = ",".join(f"{c['name']}:{c['type']}" for c in d["columns"])
    upload(s3, "rc/part-0.rc", RCFILES / "multi_group_binary_deflate.rc")
    local = colfile.read_rcfile(RCFILES / "multi_group_binary_deflate.rc", schema)
    remote = colfile.read_rcfile("s3://pybucket/rc/part-0.rc", schema)
    assert same(remote.to_pylist(), local.to_pylist())
    first = d["columns"][0]["name"]
    part = colfile.read_rcfile("s3://pybucket/rc/", schema, columns=[first])
    assert same(part.to_pylist(), local.select([first]).to_pylist())


def test_a_missing_object_is_an_error_naming_it(s3):
    with pytest.raises(colfile.ColfileError) as e:
        colfile.read_tsfile("s3://pybucket/ts/missing.tsfile")
    assert "missing.tsfile" in str(e.value)


def test_deletions_beside_an_object_apply_as_beside_a_local_file(s3, tmp_path):
    local = tmp_path / "t.tsfile"
    shutil.copy(TSFILES / "tree_basic.tsfile", local)
    # IoTDB's text form: delete root.x.s at times 1..1 in data written before the file
    # reached the offset given (here: all of it).
    (tmp_path / "t.tsfile.mods").write_text("DELETION,root.x.s,9223372036854775807,1,1\n")
    upload(s3, "mods/t.tsfile", local)
    upload(s3, "mods/t.tsfile.mods", tmp_path / "t.tsfile.mods")
    whole = colfile.read_tsfile(TSFILES / "tree_basic.tsfile")
    kept = colfile.read_tsfile(local)
    assert kept.num_rows == whole.num_rows - 1
    assert colfile.read_tsfile("s3://pybucket/mods/t.tsfile").equals(kept)
    assert colfile.read_tsfile("s3://pybucket/mods/t.tsfile", mods=False).equals(whole)
    # A damaged modification object is an error naming it.
    put(f"{s3}/pybucket/mods/t.tsfile.mods", b"DELETION,root.x.s,1,not-a-time,1\n")
    with pytest.raises(colfile.ColfileError) as e:
        colfile.read_tsfile("s3://pybucket/mods/t.tsfile")
    assert "t.tsfile.mods" in str(e.value)
