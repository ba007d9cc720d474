"""Voiceprints: 256-d GE2E speaker embeddings of 1.6 s windows of speech, for diarization.

The weights are Resemblyzer 0.1.4's ``pretrained.pt`` (the bundled ``ge2e-speaker-encoder``,
sha256 checked before they load). Resemblyzer's own code is not used: it needs librosa and
webrtcvad. Its network is rebuilt here from its ``voice_encoder.py`` (Wan et al., "Generalized
End-to-End Loss for Speaker Verification", 2018): a 3-layer LSTM of 256 over 40-channel mel
power frames (25 ms windows every 10 ms at 16 kHz, librosa's Slaney filter bank), a linear
layer of 256, ReLU and L2 normalisation of the last hidden state. The encoder lives in a
:class:`ModelHolder`, so it loads on first use and is freed after the idle time, like Whisper.
It runs on a fixed thread count (``diarization.n_threads``), set for the call and restored.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

from core.bundled import verified_packaged_path
from core.errors import ModelError
from core.holder import ModelHolder
from core.offline import enforce_offline

if TYPE_CHECKING:
    import numpy as np

    from core.settings import DiarizationSettings

NAME = "ge2e-speaker-encoder"
SAMPLE_RATE = 16_000
N_FFT = 400  # 25 ms
HOP = 160  # 10 ms: one mel frame
N_MELS = 40
#: Frames in one window (1.6 s), as Resemblyzer's partial utterances.
WINDOW_FRAMES = 160
EMBEDDING_SIZE = 256
#: Resemblyzer raises quiet recordings to this loudness before embedding them.
TARGET_DBFS = -30.0
#: Windows run through the LSTM at once.
BATCH = 64
#: Measured (2 threads, 60 s of speech): RSS rose 24 MiB loading the encoder beside an imported
#: torch; the weights file (17 MB, with the optimiser state) is not kept.
WORKING_BYTES = 24 * 1024 * 1024


def estimate_resident_bytes(settings: DiarizationSettings) -> int:
    """Bytes the loaded encoder keeps resident (0 when diarization is off)."""
    return WORKING_BYTES if settings.enabled else 0


def mel_filters() -> np.ndarray:
    """librosa.filters.mel(sr=16000, n_fft=400, n_mels=40) (Slaney scale and norm), shape
    (40, 201); the same construction as faster-whisper's ``get_mel_filters``."""
    import numpy as np

    fftfreqs = np.fft.rfftfreq(n=N_FFT, d=1.0 / SAMPLE_RATE)
    f_sp = 200.0 / 3
    min_log_hz = 1000.0
    min_log_mel = min_log_hz / f_sp
    logstep = np.log(6.4) / 27.0
    top = SAMPLE_RATE / 2
    max_mel = min_log_mel + np.log(top / min_log_hz) / logstep
    mels = np.linspace(0.0, max_mel, N_MELS + 2)
    freqs = f_sp * mels
    log_t = mels >= min_log_mel
    freqs[log_t] = min_log_hz * np.exp(logstep * (mels[log_t] - min_log_mel))
    fdiff = np.diff(freqs)
    ramps = freqs.reshape(-1, 1) - fftfreqs.reshape(1, -1)
    lower = -ramps[:-2] / fdiff[:-1, None]
    upper = ramps[2:] / fdiff[1:, None]
    weights = np.maximum(0.0, np.minimum(lower, upper))
    weights *= (2.0 / (freqs[2 : N_MELS + 2] - freqs[:N_MELS]))[:, None]
    return weights.astype(np.float32)


def normalize_volume(samples: np.ndarray) -> np.ndarray:
    """Samples raised (never lowered) to ``TARGET_DBFS`` RMS, as Resemblyzer's preprocessing."""
    import numpy as np

    rms = float(np.sqrt(np.mean(np.square(samples, dtype=np.float64))))
    if rms <= 0.0:
        return samples
    change = TARGET_DBFS - 20.0 * np.log10(rms)
    return samples if change < 0 else (samples * (10 ** (change / 20))).astype(np.float32)


class _Network:
    """The encoder's torch modules and the mel filter bank (built on load)."""

    def __init__(self, state: dict[str, Any]) -> None:
        import torch
        from torch import nn

        self.torch = torch
        self.lstm = nn.LSTM(N_MELS, 256, 3, batch_first=True)
        self.linear = nn.Linear(256, EMBEDDING_SIZE)
        try:
            self.lstm.load_state_dict(
                {k.removeprefix("lstm."): v for k, v in state.items() if k.startswith("lstm.")}
            )
            self.linear.load_state_dict(
                {k.removeprefix("linear."): v for k, v in state.items() if k.startswith("linear.")}
            )
        except (RuntimeError, KeyError) as exc:
            raise ModelError(f"{NAME}: weights do not fit the GE2E network ({exc})") from exc
        self.lstm.eval()
        self.linear.eval()
        self.filters = torch.from_numpy(mel_filters())
        self.window = torch.hann_window(N_FFT)

    def mel(self, samples: np.ndarray) -> Any:
        """Mel power frames of 16 kHz samples: a tensor (frames, 40), one frame per 10 ms."""
        torch = self.torch
        wav = torch.from_numpy(samples.astype("float32", copy=False))
        spec = torch.stft(
            wav,
            N_FFT,
            HOP,
            window=self.window,
            center=True,
            pad_mode="constant",
            return_complex=True,
        )
        return (self.filters @ spec.abs().square()).T.contiguous()

    def embed(self, windows: Any) -> Any:
        """(n, 160, 40) mel windows -> (n, 256) unit vectors."""
        _, (hidden, _) = self.lstm(windows)
        raw = self.torch.relu(self.linear(hidden[-1]))
        norm = raw.norm(dim=1, keepdim=True).clamp_min(1e-9)
        return raw / norm


class SpeakerEncoder:
    """GE2E voiceprints of windows of a recording; the network loads lazily and frees itself."""

    def __init__(self, settings: DiarizationSettings) -> None:
        self.settings = settings
        self._lock = threading.Lock()
        self.holder: ModelHolder[_Network] = ModelHolder(
            "speakers",
            self._load,
            idle_seconds=settings.idle_seconds,
            resident=settings.resident,
            resident_bytes=estimate_resident_bytes(settings),
        )

    def _load(self) -> _Network:
        enforce_offline()
        path = verified_packaged_path(NAME)  # ModelError when absent or altered
        import torch

        try:
            checkpoint = torch.load(path, map_location="cpu", weights_only=True)
            state = checkpoint["model_state"]
        except Exception as exc:
            raise ModelError(f"{NAME} at {path} failed to load: {exc}") from exc
        return _Network(state)

    def embed(self, samples: np.ndarray, starts: list[int]) -> np.ndarray:
        """Voiceprints of the 1.6 s windows of 16 kHz mono ``samples`` starting at the given
        mel frames (10 ms each; a window past the end is padded with silence): float32, shape
        (len(starts), 256), unit vectors. Volume is normalised over the whole recording."""
        import numpy as np

        if not starts:
            return np.zeros((0, EMBEDDING_SIZE), dtype=np.float32)
        audio = normalize_volume(np.asarray(samples, dtype=np.float32))
        with self.holder.use() as net, self._lock:
            torch = net.torch
            before = torch.get_num_threads()
            torch.set_num_threads(self.settings.n_threads)
            try:
                with torch.inference_mode():
                    mel = net.mel(audio)
                    need = max(starts) + WINDOW_FRAMES
                    if need > mel.shape[0]:
                        pad = torch.zeros(need - mel.shape[0], N_MELS)
                        mel = torch.cat([mel, pad])
                    out = []
                    for i in range(0, len(starts), BATCH):
                        batch = torch.stack(
                            [mel[s : s + WINDOW_FRAMES] for s in starts[i : i + BATCH]]
                        )
                        out.append(net.embed(batch).numpy())
            finally:
                torch.set_num_threads(before)
        return np.concatenate(out).astype(np.float32)
