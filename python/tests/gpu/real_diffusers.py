"""real_diffusers.py: attngen inside the real diffusers source on an NVIDIA GPU.

diffusers is not installed on the GPU machine: pass the folder that holds its `diffusers`
package (a checkout's src/, carried as a tarball). Each model is built from its own class with
a tiny random config (head_dim 128), run in bf16 through diffusers' attention dispatcher with
the native backend (SDPA) and with attngen's backend (attngen.integrations.diffusers), and
compared with the same model in fp32 on the native backend. A check passes when attngen ran
(its calls are counted), took the path it should, and its output error against fp32 is no
worse than native bf16's (x1.25 + 1e-3 relative L2).

  hunyuan   HunyuanVideoTransformer3DModel, batch 2 with prompts of different lengths: the
            [B, 1, 1, N] key-padding mask becomes kv_lengths (every attngen call has them);
            the first attention call is recomputed in fp64 with and without the padding:
            attngen's output is the masked one's (and far from the unmasked one's)
  sd3       SD3Transformer2DModel at SD3's real head_dim 64 (sd3.5-style dual attention and
            qk norm too): its JointAttnProcessor2_0 calls SDPA itself, so
            set_attention_backend does not reach it; attngen.integrations.diffusers.
            install_processors routes those calls (every attention call counted as routed,
            none left to SDPA), then uninstall_processors restores SDPA
  skip      temporal tile skipping (attngen.integrations.diffusers.enable_skip) in the
            HunyuanVideo model over 3 denoising steps (timesteps 900, 800, 700, inputs that
            drift), on --skip-device (default cpu: attngen's cpu backend skips with the
            reference; cuda once the sm90 skip kernels exist): one SkipState per attention
            module, the first step bitwise the dense backend's output, the later steps'
            skipped fractions reported and their error against dense bounded; a second
            pipeline-style run after ctl.reset() starts afresh (bitwise dense again); the
            calibration mode returns the dense output and records the cost
usage: python3 real_diffusers.py --diffusers-src DIR [--out DIR] [--only NAME,...]
       [--skip-device cpu|cuda] [--skip-threshold T] [--skip-frames F] [--skip-hw N]
       [--skip-tie-qk] [--skip-qk-gain G]
"""
import argparse
import json
import os
import sys
import time
import traceback

import torch

RESULTS = []


def rel_l2(a, b):
    a, b = a.double(), b.double()
    return ((a - b).norm() / b.norm().clamp_min(1e-30)).item()


class CallCounter:
    """Wraps attngen.ops.attention: counts calls and those with kv_lengths; keeps the first
    call's arguments and result."""

    def __init__(self):
        import attngen.ops as ops
        self.ops, self.orig = ops, ops.attention
        self.calls = self.with_kvl = 0
        self.first = None

    def __enter__(self):
        def wrapped(*a, **kw):
            self.calls += 1
            self.with_kvl += kw.get("kv_lengths") is not None
            out = self.orig(*a, **kw)
            if self.first is None:
                self.first = (a, dict(kw), out)
            return out
        self.ops.attention = wrapped
        return self

    def __exit__(self, *exc):
        self.ops.attention = self.orig


def run_hunyuan(args):
    from diffusers import HunyuanVideoTransformer3DModel
    from diffusers.models.attention_dispatch import attention_backend
    torch.manual_seed(0)
    cfg = dict(in_channels=4, out_channels=4, num_attention_heads=4, attention_head_dim=128,
               num_layers=2, num_single_layers=2, num_refiner_layers=1, mlp_ratio=2.0,
               patch_size=2, patch_size_t=1, text_embed_dim=64, pooled_projection_dim=32,
               rope_axes_dim=(16, 56, 56))
    m32 = HunyuanVideoTransformer3DModel(**cfg).cuda().eval()
    m16 = HunyuanVideoTransformer3DModel(**cfg).cuda().eval()
    m16.load_state_dict(m32.state_dict())
    m16 = m16.to(torch.bfloat16)
    B, L = 2, 24
    text_lens = [7, 19]                      # both prompts padded: real lengths 7 and 19 of 24
    x = torch.randn(B, 4, 3, 16, 16, device="cuda")
    ehs = torch.randn(B, L, 64, device="cuda")
    emask = torch.zeros(B, L, device="cuda", dtype=torch.int64)
    for b, n in enumerate(text_lens):
        emask[b, :n] = 1
    pooled = torch.randn(B, 32, device="cuda")
    t = torch.tensor([500, 700], device="cuda")
    guidance = torch.tensor([6000.0, 6000.0], device="cuda")

    def call(model, dtype, mask):
        with torch.no_grad():
            return model(hidden_states=x.to(dtype), timestep=t, encoder_hidden_states=ehs.to(dtype),
                         encoder_attention_mask=mask, pooled_projections=pooled.to(dtype),
                         guidance=guidance, return_dict=False)[0].float()

    ref = call(m32, torch.float32, emask)
    native = call(m16, torch.bfloat16, emask)
    with CallCounter() as cc:
        with attention_backend("attngen"):
            ag = call(m16, torch.bfloat16, emask)
    torch.cuda.synchronize()
    e_native, e_ag = rel_l2(native, ref), rel_l2(ag, ref)
    # The first attention call in fp64: with the padding (keys [0, n_b)) and without it.
    (q, k, v), kw, out = cc.first[0][:3], cc.first[1], cc.first[2]
    lens = kw["kv_lengths"].tolist()
    scale = kw.get("scale") or q.shape[-1] ** -0.5
    masked, unmasked = torch.empty_like(out, dtype=torch.float64), None
    qd, kd, vd = (t.double().transpose(1, 2) for t in (q, k, v))   # BSHD -> BHSD
    for b, n in enumerate(lens):
        p = (qd[b] @ kd[b, :, :n].transpose(-1, -2) * scale).softmax(-1)
        masked[b] = (p @ vd[b, :, :n]).transpose(0, 1)
    unmasked = (((qd @ kd.transpose(-1, -2)) * scale).softmax(-1) @ vd).transpose(1, 2)
    e_attn = (out.double() - masked).abs().max().item()
    e_attn_unmasked = (out.double() - unmasked).abs().max().item()
    detail = dict(tokens=3 * 8 * 8 + L, text_lens=text_lens, kv_lengths_first_call=lens,
                  attngen_calls=cc.calls, attngen_calls_with_kv_lengths=cc.with_kvl,
                  rel_l2_native_bf16=e_native, rel_l2_attngen=e_ag,
                  first_call_max_err_vs_fp64_masked=e_attn,
                  first_call_max_err_vs_fp64_unmasked=e_attn_unmasked)
    # 2 dual-stream + 2 single-stream blocks: 4 joint attentions, all with the padding mask
    assert cc.calls == 4 and cc.with_kvl == 4, detail
    assert torch.isfinite(ag).all(), detail
    assert e_ag <= 1.25 * e_native + 1e-3, detail
    assert lens == [3 * 8 * 8 + n for n in text_lens], detail    # latent + real text tokens
    assert e_attn <= 2 ** -6, detail
    assert e_attn_unmasked > 4 * max(e_attn, 2 ** -9), ("the padding makes no difference to "
                                                        "this call: the test would not see "
                                                        "it ignored", detail)
    return detail


def run_sd3(args):
    from diffusers import SD3Transformer2DModel
    import attngen.integrations.diffusers as agd
    torch.manual_seed(0)
    cfg = dict(sample_size=32, patch_size=2, in_channels=16, num_layers=3,
               attention_head_dim=64, num_attention_heads=6, joint_attention_dim=96,
               caption_projection_dim=384, pooled_projection_dim=48, out_channels=16,
               pos_embed_max_size=32, dual_attention_layers=(0,), qk_norm="rms_norm")
    m32 = SD3Transformer2DModel(**cfg).cuda().eval()
    m16 = SD3Transformer2DModel(**cfg).cuda().eval()
    m16.load_state_dict(m32.state_dict())
    m16 = m16.to(torch.bfloat16)
    B, L = 2, 77
    x = torch.randn(B, 16, 32, 32, device="cuda")
    ehs = torch.randn(B, L, 96, device="cuda")
    pooled = torch.randn(B, 48, device="cuda")
    t = torch.tensor([500, 700], device="cuda")

    def call(model, dtype):
        with torch.no_grad():
            return model(hidden_states=x.to(dtype), encoder_hidden_states=ehs.to(dtype),
                         pooled_projections=pooled.to(dtype), timestep=t,
                         return_dict=False)[0].float()

    ref = call(m32, torch.float32)
    native = call(m16, torch.bfloat16)
    classes = sorted({type(p).__name__ for p in m16.attn_processors.values()})
    stats = agd.install_processors(m16, strict=True)
    with CallCounter() as cc:
        ag = call(m16, torch.bfloat16)
    agd.uninstall_processors(m16)
    back = sorted({type(p).__name__ for p in m16.attn_processors.values()})
    with CallCounter() as cc_after:
        native2 = call(m16, torch.bfloat16)
    torch.cuda.synchronize()
    e_native, e_ag = rel_l2(native, ref), rel_l2(ag, ref)
    (q, k, v), kw, out = cc.first[0][:3], cc.first[1], cc.first[2]
    scale = kw.get("scale") or q.shape[-1] ** -0.5
    exact = (((q.double() @ k.double().transpose(-1, -2)) * scale).softmax(-1) @ v.double())
    e_attn = (out.double() - exact).abs().max().item()
    detail = dict(processors=classes, restored=back, head_dim=int(q.shape[-1]),
                  first_call_shape=list(q.shape), attngen_calls=cc.calls, stats=repr(stats),
                  attngen_calls_after_uninstall=cc_after.calls,
                  rel_l2_native_bf16=e_native, rel_l2_attngen=e_ag,
                  first_call_max_err_vs_fp64=e_attn,
                  native_unchanged_after_uninstall=torch.equal(native, native2))
    # 3 joint blocks (the first with a second, dual attention): every call routed
    assert q.shape[-1] == 64 and cc.calls >= 3 and stats.routed == cc.calls, detail
    assert stats.fallback == 0 and cc_after.calls == 0 and back == classes, detail
    assert detail["native_unchanged_after_uninstall"], detail
    assert torch.isfinite(ag).all() and e_ag <= 1.25 * e_native + 1e-3, detail
    assert e_attn <= 2 ** -6, detail
    return detail


def run_skip(args):
    from diffusers import HunyuanVideoTransformer3DModel
    from diffusers.models.attention_dispatch import attention_backend
    import attngen.integrations.diffusers as agd
    dev = torch.device(args.skip_device)
    torch.manual_seed(0)
    cfg = dict(in_channels=4, out_channels=4, num_attention_heads=2, attention_head_dim=128,
               num_layers=2, num_single_layers=2, num_refiner_layers=1, mlp_ratio=2.0,
               patch_size=2, patch_size_t=1, text_embed_dim=64, pooled_projection_dim=32,
               rope_axes_dim=(16, 56, 56))
    m = HunyuanVideoTransformer3DModel(**cfg).to(dev).eval().to(torch.bfloat16)
    if args.skip_tie_qk or args.skip_qk_gain != 1.0:
        # Random weights give diffuse attention, where no whole tile falls |T| below a row's
        # max (the default config skips nothing). --skip-tie-qk makes each attention's key
        # projection its query projection (a token's own key then scores highest, RoPE keeps
        # neighbours close: the diagonal structure of video attention) and --skip-qk-gain
        # scales the q/k RMSNorm weights (scores by gain^2), so that tiles do get skipped.
        with torch.no_grad():
            for mod in m.modules():
                if not (hasattr(mod, "to_q") and hasattr(mod, "to_k")):
                    continue
                pairs = [("to_q", "to_k"), ("add_q_proj", "add_k_proj"),
                         ("norm_q", "norm_k"), ("norm_added_q", "norm_added_k")]
                for qn, kn in pairs:
                    qm, km = getattr(mod, qn, None), getattr(mod, kn, None)
                    if qm is None or km is None:
                        continue
                    if args.skip_tie_qk:
                        km.load_state_dict(qm.state_dict())
                    if qn.startswith("norm") and getattr(qm, "weight", None) is not None:
                        qm.weight.mul_(args.skip_qk_gain)
                        km.weight.mul_(args.skip_qk_gain)
    B, L = 1, 24
    x0 = torch.randn(B, 4, args.skip_frames, args.skip_hw, args.skip_hw, device=dev)
    ehs = torch.randn(B, L, 64, device=dev).to(torch.bfloat16)
    emask = torch.ones(B, L, device=dev, dtype=torch.int64)
    pooled = torch.randn(B, 32, device=dev).to(torch.bfloat16)
    guidance = torch.tensor([6000.0], device=dev)

    def step(i):
        g = torch.Generator(device="cpu").manual_seed(100 + i)
        x = (x0 + 0.05 * i * torch.randn(x0.shape, generator=g).to(dev)).to(torch.bfloat16)
        t = torch.tensor([900 - 100 * i], device=dev)
        with torch.no_grad(), attention_backend("attngen"):
            return m(hidden_states=x, timestep=t, encoder_hidden_states=ehs,
                     encoder_attention_mask=emask, pooled_projections=pooled,
                     guidance=guidance, return_dict=False)[0].float()

    dense = [step(i) for i in range(3)]
    ctl = agd.enable_skip(m, threshold_log2=args.skip_threshold)
    with CallCounter() as cc:
        sk = [step(i) for i in range(3)]
    fractions = {f"{k[0]}/{k[1]}": v for k, v in ctl.skipped_fractions().items()}
    errs = [rel_l2(a, b) for a, b in zip(sk, dense)]
    steps, nstates = ctl.steps, len(ctl.states)  # (before the reset below starts afresh)
    ctl.reset()
    again = step(0)
    agd.disable_skip(m)
    ctl_cal = agd.enable_skip(m, threshold_log2=args.skip_threshold, calibrate=True)
    cal = [step(i) for i in range(3)]
    cal_cost = {f"{k[0]}/{k[1]}": s.calibration for k, s in ctl_cal.states.items()}
    agd.disable_skip(m)
    detail = dict(device=str(dev), threshold_log2=args.skip_threshold, attngen_calls=cc.calls,
                  latent=[args.skip_frames, args.skip_hw, args.skip_hw],
                  tie_qk=args.skip_tie_qk, qk_gain=args.skip_qk_gain,
                  states=nstates, steps=steps, skipped_fraction_last_step=fractions,
                  rel_l2_vs_dense_per_step=errs,
                  first_step_bitwise_dense=torch.equal(sk[0], dense[0]),
                  after_reset_bitwise_dense=torch.equal(again, dense[0]),
                  calibration_returns_dense=all(torch.equal(a, b) for a, b in zip(cal, dense)),
                  calibration=cal_cost)
    assert cc.calls >= 4 and nstates >= 4 and steps == 3, detail
    assert detail["first_step_bitwise_dense"] and detail["after_reset_bitwise_dense"], detail
    assert detail["calibration_returns_dense"], detail
    assert all(torch.isfinite(o).all() for o in sk), detail
    assert max(errs) < 0.1, detail
    return detail


CHECKS = {"hunyuan": run_hunyuan, "sd3": run_sd3, "skip": run_skip}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--diffusers-src", required=True,
                    help="folder holding the diffusers package (a checkout's src/)")
    ap.add_argument("--out", default=os.environ.get("OUT", "."))
    ap.add_argument("--only", default="", help="run only these checks, comma-separated "
                    f"({', '.join(CHECKS)})")
    ap.add_argument("--skip-device", default="cpu",
                    help="device of the skip check (cpu: attngen's reference; cuda)")
    ap.add_argument("--skip-threshold", type=float, default=-2.0,
                    help="the skip check's threshold_log2 (default -2)")
    ap.add_argument("--skip-frames", type=int, default=3,
                    help="the skip check's latent frames (default 3)")
    ap.add_argument("--skip-hw", type=int, default=16,
                    help="the skip check's latent height = width (default 16; patch 2)")
    ap.add_argument("--skip-tie-qk", action="store_true",
                    help="the skip check's attentions use their query projection as key "
                         "projection (diagonal-dominant attention, so tiles get skipped)")
    ap.add_argument("--skip-qk-gain", type=float, default=1.0,
                    help="the skip check scales the q/k RMSNorm weights by this (default 1)")
    args = ap.parse_args()
    if not os.path.isdir(os.path.join(args.diffusers_src, "diffusers")):
        ap.error(f"--diffusers-src {args.diffusers_src}: no diffusers package folder in it")
    sys.path.insert(0, args.diffusers_src)
    only = [n for n in args.only.split(",") if n]
    for n in only:
        if n not in CHECKS:
            ap.error(f"--only {n}: unknown check (allowed: {', '.join(CHECKS)})")
    import diffusers
    import attngen
    import attngen.integrations.diffusers as agd
    agd.register()
    print(f"diffusers {diffusers.__version__} from {diffusers.__file__}, torch "
          f"{torch.__version__}, attngen {attngen.__version__}, "
          f"{torch.cuda.get_device_name() if torch.cuda.is_available() else 'no GPU'}",
          flush=True)
    for name, fn in CHECKS.items():
        if only and name not in only:
            continue
        t0 = time.time()
        try:
            detail, ok = fn(args), True
        except Exception as e:  # noqa: BLE001 - a report
            traceback.print_exc()
            detail, ok = f"{type(e).__name__}: {e}", False
        RESULTS.append(dict(check=name, ok=ok, seconds=round(time.time() - t0, 1),
                            detail=detail))
        print(f"[{'PASS' if ok else 'FAIL'}] {name}: {json.dumps(detail)}", flush=True)
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "real_diffusers.json"), "w") as f:
        json.dump(RESULTS, f, indent=1)
    return 0 if RESULTS and all(r["ok"] for r in RESULTS) else 1


if __name__ == "__main__":
    sys.exit(main())
