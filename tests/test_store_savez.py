"""The store's zip writer (harness.store.results.savez): the arrays np.load reads back, equal members deflated once."""
import io
import zipfile

import numpy as np
import pytest

from harness.store import results


def _arrays():
    owner = (np.arange(5000) * 7) % 32
    return {"owner": owner.astype(np.int8), "home": owner.astype(np.int8), "zero": np.zeros(3),
            "negzero": -np.zeros(3), "scalar": np.float32(2.5), "empty": np.empty((0, 2), np.int16),
            "cell.json": np.frombuffer(b'{"format": 2}', np.uint8)}


@pytest.mark.parametrize("small", [True, False])
def test_savez_writes_a_zip_np_load_reads_back(monkeypatch, small):
    if not small:
        monkeypatch.setattr(results, "SMALL_ZIP", 0)  # through zipfile, with ZIP64 headers
    buf = io.BytesIO()
    results.savez(buf, _arrays())
    with zipfile.ZipFile(io.BytesIO(buf.getvalue())) as zf:
        assert zf.testzip() is None
        info = {i.filename: i for i in zf.infolist()}
    assert all(i.compress_type == zipfile.ZIP_DEFLATED for i in info.values())
    with np.load(io.BytesIO(buf.getvalue()), allow_pickle=False) as z:
        assert z.files == list(_arrays())
        for name, a in _arrays().items():
            b = z[name]
            assert b.dtype == np.asarray(a).dtype and b.shape == np.shape(a) and b.tobytes() == np.asarray(a).tobytes()
    if small:  # homes equal to owners: one deflation, its bytes written twice; 0.0 and -0.0 stay apart
        assert info["owner.npy"].CRC == info["home.npy"].CRC
        assert info["zero.npy"].CRC != info["negzero.npy"].CRC
        data = buf.getvalue()
        assert data.count(data[info["owner.npy"].header_offset + 30 + 9:][:info["owner.npy"].compress_size]) == 2
