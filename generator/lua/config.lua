-- config.lua: the configuration space as data. Axes and their values, the canonical
-- variant name (derived mechanically in a fixed axis order), the validity rules (all of
-- them, in this one place; each rejection names its rule), the default AOT set and the
-- tuning search space.
local M = {}

M.op_prefix = "attn_fwd"

-- Axes in canonical name order. `short` turns a value into its name token.
M.axis_order = { "head_dim", "layout", "rounding", "q_tiles", "kv_tile", "waves", "kv_split", "v_path",
  "load", "mask", "skip", "impl", "target" }

-- Axes with named values have C enums (generated/variant_axes.h, by `attngen generate`):
-- `c_enum` is the enum's prefix (ATTNGEN__<c_enum>_<VALUE>), a value's id its position
-- in `values` counted from 0. layout and rounding ids equal the public attngen_layout and
-- attngen_rounding values (the runtime asserts it at compile time).
M.axes = {
  -- Elements per row of q, k, v and out (the head dimension), the first name token (d128:
  -- the names of the head_dim 128 kernels are those of the time before the axis; a prefix
  -- axis always has its token, so the default only fills specs that leave it out).
  head_dim = { values = { 64, 128, 256 }, prefix = "d", default = 128 },
  layout = { values = { "bshd", "bhsd" }, c_enum = "LAYOUT" },
  rounding = { values = { "rtne", "rtna", "rtz" }, c_enum = "ROUNDING" },
  q_tiles = { values = { 1, 2, 3 }, prefix = "q" },
  kv_tile = { values = { 32, 64, 80, 96, 128, 144, 176 }, prefix = "kv" },
  waves = { values = { 4, 8, 12, 16 }, prefix = "w" },
  kv_split = { values = { "off", "tail" }, tokens = { off = "nosplit", tail = "tail" },
               c_enum = "SPLIT" },
  -- How the P V MFMA gets its V operand (gfx942): "perm" reads V rows as stored and builds
  -- the operand in the loop with v_perm_b32 (2 per 16-key x 16-column block); "vt" reads a
  -- copy of V that a pre-pass of the same kernel (kargs.vt_prepass = 1) wrote into the
  -- workspace already in operand order (no permutes in the loop; the pre-pass reads and
  -- writes |V| bytes per call). `default` values add no token to the name.
  v_path = { values = { "perm", "vt" }, tokens = { perm = "", vt = "vt" }, default = "perm",
             c_enum = "V_PATH" },
  -- How the sm90 wgmma kernel's producer moves Q, K and V into shared memory: "thread" = every
  -- thread of the producer warpgroup issues 16-byte copies (cp.async on sm90; gfx942 kernels
  -- load per thread too); "tma" = one producer thread issues bulk tensor copies
  -- (cp.async.bulk.tensor) through tensor maps that the runtime encodes per call and passes
  -- in the kernel parameter (attngen_kargs_tma, templates/common/kargs_tma.h).
  load = { values = { "thread", "tma" }, tokens = { thread = "", tma = "tma" },
           default = "thread", c_enum = "LOAD" },
  -- Matrix-instruction family of the kernel: gfx942 MFMA; sm90 mma.sync (warp-level)
  -- or wgmma (warpgroup-level, TMA + mbarriers).
  -- The attention mask compiled into the kernel: "none", or "causal" (bottom-right aligned,
  -- kargs.causal; docs/NUMERICS.md): a causal kernel runs only the KV tiles up to each
  -- q-block's diagonal and masks per row there. A variant serves only calls with its mask
  -- (the dispatcher pairs args.causal with it), so the dense kernels carry no causal code.
  mask = { values = { "none", "causal" }, tokens = { none = "", causal = "causal" },
           default = "none", c_enum = "MASK" },
  -- Temporal tile skipping (issue 27; docs/NUMERICS.md "Tile skipping"): "on" = the kernel
  -- reads a skip list (kargs.skip_read, must-skip / must-do masks), neither loads nor computes
  -- the (q-tile, kv-tile) pairs it marks, and writes the next list (kargs.skip_write) from its
  -- own row maxima. A variant serves only calls with its skip (the dispatcher pairs
  -- args.skip with it), so the dense kernels carry no skip code. "off" adds no name token.
  skip = { values = { "off", "on" }, tokens = { off = "", on = "skip" }, default = "off",
           c_enum = "SKIP" },
  impl = { values = { "mfma", "mma", "wgmma" }, c_enum = "IMPL" },
  target = { values = { "gfx942", "sm90" }, c_enum = "TARGET" },
}
for _, a in pairs(M.axes) do
  if a.c_enum then
    a.ids = {}
    for i, value in ipairs(a.values) do a.ids[value] = i - 1 end
  end
end

-- The kernel families with skip code (rule "skip"): each entry a set of axis values a skip=on
-- variant must have, e.g. { target = "sm90", impl = "wgmma", load = "tma", mask = "none" }.
M.skip_built = {
  -- sm90: with and without the tail KV split (a part judges its own tiles and writes its
  -- own list words; the runtime plans whole words per part)
  { target = "sm90", impl = "wgmma", load = "tma", mask = "none" },
  -- gfx942 (templates/gfx942/attn_fwd.hip.in): every head dim (64, 128, 256), without the
  -- causal mask; with and without the tail KV split (as sm90: a part judges its own tiles and
  -- writes its own list words; the runtime plans whole words per part)
  { target = "gfx942", impl = "mfma", mask = "none" },
}

-- Per target: the architecture its kernels are compiled for (JIT and AOT), the runtime
-- backend that runs them on a GPU, and the extension of its generated sources.
M.targets = {
  gfx942 = { arch = "gfx942", backend = "hip", ext = "hip" },
  sm90 = { arch = "sm_90a", backend = "cuda", ext = "cu" },
}

-- Kernel families, keyed by (target, impl): the template and the Lua module whose derive()
-- gives the launch geometry and template constants. The only place that maps a variant to
-- its template.
M.families = {
  { target = "gfx942", impl = "mfma", template = "gfx942/attn_fwd.hip.in", module = "target_gfx942" },
  { target = "sm90", impl = "mma", template = "sm90/attn_fwd.cu.in", module = "target_sm90" },
  { target = "sm90", impl = "wgmma", template = "sm90/attn_fwd_wgmma.cu.in",
    module = "target_sm90_wgmma" },
}

-- The family of a variant (nil when (target, impl) has none).
function M.family(v)
  for _, f in ipairs(M.families) do
    if f.target == v.target and f.impl == v.impl then return f end
  end
  return nil
end

-- The name token of one axis value.
function M.token(axis, value)
  local a = M.axes[axis]
  if a.prefix then return a.prefix .. tostring(value) end
  if a.tokens then return a.tokens[value] end
  return value
end

function M.name(v)
  local parts = { M.op_prefix }
  for _, axis in ipairs(M.axis_order) do
    local t = M.token(axis, v[axis] == nil and M.axes[axis].default or v[axis])
    if t ~= "" then parts[#parts + 1] = t end
  end
  return table.concat(parts, "_")
end

-- Parses a canonical name into an axis table; returns nil, message on a malformed name.
function M.parse(name)
  if type(name) ~= "string" or name:sub(1, #M.op_prefix + 1) ~= M.op_prefix .. "_" then
    return nil, string.format("'%s' is not a variant name (expected %s_<axes...>)",
      tostring(name), M.op_prefix)
  end
  local tokens = {}
  for t in name:sub(#M.op_prefix + 2):gmatch("[^_]+") do tokens[#tokens + 1] = t end
  local required = 0
  for _, axis in ipairs(M.axis_order) do
    if M.axes[axis].default == nil then required = required + 1 end
  end
  if #tokens < required or #tokens > #M.axis_order then
    return nil, string.format("'%s' has %d axis tokens, expected %d (%s)", name, #tokens,
      #M.axis_order, table.concat(M.axis_order, ", "))
  end
  local v = {}
  local i = 1
  for _, axis in ipairs(M.axis_order) do
    for _, value in ipairs(M.axes[axis].values) do
      if tokens[i] ~= nil and M.token(axis, value) == tokens[i] then v[axis] = value end
    end
    if v[axis] ~= nil then
      i = i + 1
    elseif M.axes[axis].default ~= nil then
      v[axis] = M.axes[axis].default -- an axis at its default has no token
    else
      local allowed = {}
      for _, value in ipairs(M.axes[axis].values) do allowed[#allowed + 1] = M.token(axis, value) end
      return nil, string.format("'%s': unknown %s '%s' (allowed: %s)", name, axis,
        tostring(tokens[i]), table.concat(allowed, ", "))
    end
  end
  if i <= #tokens then
    return nil, string.format("'%s' has %d axis tokens, expected %d (%s)", name, #tokens,
      #M.axis_order, table.concat(M.axis_order, ", "))
  end
  return v
end

local function contains(list, x)
  for _, y in ipairs(list) do if y == x then return true end end
  return false
end

local function allow(axis, target, allowed)
  return function(v)
    if v.target ~= target or contains(allowed, v[axis]) then return true end
    local names = {}
    for _, a in ipairs(allowed) do names[#names + 1] = tostring(a) end
    return false, string.format("%s=%s is not supported on %s (allowed: %s)", axis,
      tostring(v[axis]), target, table.concat(names, ", "))
  end
end

-- As allow(), for the variants of one impl of a target only (the rule name says which).
local function allow_impl(axis, target, impl, allowed)
  local check = allow(axis, target, allowed)
  return function(v)
    if v.impl ~= impl then return true end
    return check(v)
  end
end

-- Every validity rule, in order. A rule returns true, or false and a message.
M.rules = {
  { name = "axis-values", check = function(v)
    for _, axis in ipairs(M.axis_order) do
      if not contains(M.axes[axis].values, v[axis]) then
        return false, string.format("%s=%s is not a value of axis %s", axis, tostring(v[axis]), axis)
      end
    end
    return true
  end },
  { name = "gfx942-impl", check = allow("impl", "gfx942", { "mfma" }) },
  { name = "sm90-impl", check = allow("impl", "sm90", { "mma", "wgmma" }) },
  { name = "family", check = function(v)
    if M.family(v) then return true end
    return false, string.format("no kernel family for target=%s impl=%s", v.target, v.impl)
  end },
  -- head_dim: 128 everywhere; 64 and 256 on the sm90 wgmma kernel with TMA loads (the
  -- per-thread copy path and the mma.sync family are written for 128-element rows); 64 and
  -- 256 on the gfx942 MFMA kernel (256: rule gfx942-head-dim-256).
  { name = "head-dim", check = function(v)
    if v.head_dim == 128 then return true end
    if v.target == "sm90" and v.impl == "wgmma" and v.load == "tma" then return true end
    if v.target == "gfx942" and v.impl == "mfma" then return true end
    return false, string.format("head_dim=%d is built for target=sm90 impl=wgmma load=tma and "
      .. "target=gfx942 only (allowed here: 128)", v.head_dim)
  end },
  -- head_dim 256 on gfx942 (templates/gfx942/attn_fwd.hip.in): the K double buffer at the
  -- padded 528-byte pitch is 2 x kv_tile x 528 bytes, so 32-key tiles only (64 would take
  -- 66 KiB of LDS); V through the pre-transposed copy (v_path=vt: a piece ring of 8 dwordx4,
  -- the perm path's 16-key row pieces are not built at 256). The causal mask fits too (252
  -- VGPRs, clang-19 and hipcc; without the split: rule mask-causal).
  { name = "gfx942-head-dim-256", check = function(v)
    if v.target ~= "gfx942" or v.head_dim ~= 256 then return true end
    if v.kv_tile ~= 32 then
      return false, string.format("kv_tile=%d at head_dim=256: the K double buffer (2 x kv_tile "
        .. "x 528 bytes) exceeds 64 KiB of LDS past 32 keys (allowed: 32)", v.kv_tile)
    end
    if v.v_path ~= "vt" then
      return false, string.format("v_path=%s at head_dim=256 is not built (allowed: vt)",
        v.v_path)
    end
    return true
  end },
  -- head_dim 256 on the wgmma kernel: a 128-row Q buffer is 64 KiB and a K/V stage 2 x kv_tile
  -- x 512 bytes, so two stages fit 227 KiB with 64-key tiles (and one O buffer) or 80-key
  -- tiles (FlashAttention-3's 128 x 80; no O buffer: O is stored from registers). Both keep
  -- the consumers' 128 O registers and S, P spill-free at 240 registers (ptxas -v). 80 is that
  -- tile only (the other head dims have their measured tiles).
  { name = "sm90-head-dim-256-kv-tile", check = function(v)
    if v.target ~= "sm90" or v.impl ~= "wgmma" then return true end
    if v.head_dim == 256 and v.kv_tile ~= 64 and v.kv_tile ~= 80 then
      return false, string.format("kv_tile=%d at head_dim=256 does not fit shared memory next to "
        .. "the 64 KiB Q buffer in two stages (allowed: 64, 80)", v.kv_tile)
    end
    if v.head_dim ~= 256 and v.kv_tile == 80 then
      return false, string.format("kv_tile=80 is built for head_dim=256 only (this is "
        .. "head_dim=%d; allowed: 64, 96, 128, 144, 176)", v.head_dim)
    end
    return true
  end },
  { name = "gfx942-q-tiles", check = allow("q_tiles", "gfx942", { 2, 3 }) },
  { name = "gfx942-waves", check = allow("waves", "gfx942", { 8 }) },
  { name = "gfx942-kv-tile", check = allow("kv_tile", "gfx942", { 32, 64, 96, 128 }) },
  -- Q (head_dim/8 VGPRs per tile), O (head_dim/4), S (kv_tile/4) and P (kv_tile/8) per Q
  -- tile must fit in 256 VGPRs next to the V ring (attngen report, clang-19). head_dim 128:
  -- q3 with 64-key tiles spilled 35-44 VGPRs, q2 with 96-key tiles fits (224-230 VGPRs):
  -- q_tiles * kv_tile <= 192. head_dim 64 (Q 8, O 16 per tile): q3 with 96-key tiles (228-238)
  -- and q2 with 128-key tiles (212-226) fit, q3 with 128-key tiles spilled 44-46 VGPRs:
  -- q_tiles * kv_tile <= 288. head_dim 256 (Q 32, O 64 per tile): q2 with 32-key tiles and
  -- a ring of 8 V pieces fits (252-254 VGPRs, clang-19 and hipcc); q3 holds 288 in Q and O
  -- alone: q_tiles * kv_tile <= 64.
  { name = "gfx942-vgpr-budget", check = function(v)
    if v.target ~= "gfx942" then return true end
    local limit = v.head_dim == 64 and 288 or v.head_dim == 256 and 64 or 192
    if v.q_tiles * v.kv_tile <= limit then return true end
    return false, string.format("q_tiles=%d with kv_tile=%d at head_dim=%d exceeds 256 VGPRs "
      .. "(spills); q_tiles * kv_tile <= %d at this head_dim", v.q_tiles, v.kv_tile, v.head_dim,
      limit)
  end },
  { name = "gfx942-v-path", check = allow("v_path", "gfx942", { "perm", "vt" }) },
  { name = "sm90-v-path", check = allow("v_path", "sm90", { "perm" }) },
  -- q_tiles=2 spills on the mma.sync kernel (12-48 bytes at kv64, 400-700 at kv128: ptxas -v).
  { name = "sm90-q-tiles", check = allow_impl("q_tiles", "sm90", "mma", { 1 }) },
  { name = "sm90-waves", check = allow_impl("waves", "sm90", "mma", { 4, 8 }) },
  { name = "sm90-kv-tile", check = allow_impl("kv_tile", "sm90", "mma", { 64, 128 }) },
  -- wgmma (templates/sm90/attn_fwd_wgmma.cu.in): 1 producer + 2 consumer warpgroups,
  -- 64 query rows per consumer; kv_tile is the N of the S = Q K^T wgmma.
  { name = "sm90-wgmma-q-tiles", check = allow_impl("q_tiles", "sm90", "wgmma", { 1 }) },
  { name = "sm90-wgmma-waves", check = allow_impl("waves", "sm90", "wgmma", { 12, 16 }) },
  -- 16 waves = 3 consumer warpgroups (block_m 192) with 160 registers each: head_dim 64 and
  -- TMA loads only (the per-thread copies are written for 2 consumers; head_dim 128's 64 O
  -- registers next to S and P do not fit 160).
  { name = "sm90-wgmma-3-consumers", check = function(v)
    if v.target ~= "sm90" or v.impl ~= "wgmma" or v.waves ~= 16 then return true end
    if v.load ~= "tma" or v.head_dim ~= 64 then
      return false, string.format("waves=16 (3 consumer warpgroups) needs load=tma and "
        .. "head_dim=64 (this is load=%s head_dim=%d)", v.load, v.head_dim)
    end
    -- ptxas -v at 160 registers: dense and causal kv 64-128 fit; dense 144 / 176 spill
    -- 224 / 800 bytes
    if v.kv_tile <= 128 then return true end
    return false, string.format("waves=16 with kv_tile=%d spills (allowed: kv_tile <= 128)",
      v.kv_tile)
  end },
  { name = "sm90-wgmma-kv-tile", check = allow_impl("kv_tile", "sm90", "wgmma",
    { 64, 80, 96, 128, 144, 176 }) },
  { name = "load-tma", check = function(v)
    if v.load ~= "tma" or (v.target == "sm90" and v.impl == "wgmma") then return true end
    return false, string.format("load=tma is an sm90 wgmma kernel's (this is target=%s impl=%s)",
      v.target, v.impl)
  end },
  -- The tail KV split on sm90 (kv_split = tail; runtime/src/split_plan.h): the persistent
  -- wgmma kernel with TMA loads runs the split parts as extra jobs and NAME_merge combines them.
  -- Not with the causal mask (its own job order and per-row KV ranges) or the per-thread loads.
  -- With tile skipping the runtime plans parts of whole list words (32 tiles).
  { name = "sm90-split", check = function(v)
    if v.target ~= "sm90" or v.kv_split ~= "tail" then return true end
    if v.impl ~= "wgmma" or v.load ~= "tma" then
      return false, string.format("kv_split=tail on sm90 is built for impl=wgmma load=tma only "
        .. "(this is impl=%s load=%s; allowed here: kv_split=off)", v.impl, v.load)
    end
    if v.mask ~= "none" then
      return false, string.format("kv_split=tail is built without the causal mask on sm90 (this "
        .. "is mask=%s; allowed with kv_split=tail: mask=none)", v.mask)
    end
    return true
  end },
  -- The causal mask. sm90: its per-row limits cost the wgmma consumers registers: 144- and
  -- 176-key tiles spilled 12-112 bytes (-Xptxas -v). (head_dim 256's 80-key tile spilled 16
  -- bytes until the masked tile's test took no column index per score, 0 since (ptxas 13.0);
  -- H200 run M65: 1.02-1.10x the 64-key tile's time, so the default set keeps 64.) gfx942:
  -- without the tail KV split (the causal kernel shortens each block's KV range to its
  -- diagonal; a split plan is made for dense rows).
  { name = "mask-causal", check = function(v)
    if v.mask ~= "causal" then return true end
    if v.target == "gfx942" and v.kv_split ~= "off" then
      return false, string.format("mask=causal is built without the KV split on gfx942 "
        .. "(this is kv_split=%s; allowed: off)", v.kv_split)
    end
    if v.impl == "wgmma" and v.kv_tile > 128 then
      return false, string.format("mask=causal with kv_tile=%d spills (wgmma: kv_tile <= 128)",
        v.kv_tile)
    end
    return true
  end },
  -- skip=on: the kernels that read and write skip lists. The kernel writers add their family
  -- to M.skip_built when its template has the skip code (until then every skip=on variant is
  -- refused, and the cpu reference is the only backend that skips).
  { name = "skip", check = function(v)
    if v.skip ~= "on" then return true end
    for _, f in ipairs(M.skip_built) do
      local match = true
      for axis, value in pairs(f) do
        if v[axis] ~= value then match = false end
      end
      if match then return true end
    end
    local built = {}
    for _, f in ipairs(M.skip_built) do
      local parts = {}
      for _, axis in ipairs(M.axis_order) do
        if f[axis] ~= nil then parts[#parts + 1] = axis .. "=" .. tostring(f[axis]) end
      end
      built[#built + 1] = table.concat(parts, " ")
    end
    local this = string.format("this is head_dim=%d target=%s impl=%s load=%s mask=%s kv_split=%s",
      v.head_dim, v.target, v.impl, v.load, v.mask, v.kv_split)
    if #built == 0 then
      return false, "skip=on is built for no kernel yet (the cpu reference skips; " .. this .. ")"
    end
    return false, string.format("skip=on is built for %s only (%s)", table.concat(built, " and "),
      this)
  end },
  -- Shared memory budget of the sm90 kernel: 227 KiB per block on Hopper.
  { name = "sm90-smem-budget", check = function(v)
    if v.target ~= "sm90" then return true end
    local d = require(M.family(v).module).derive(v)
    if d.smem_bytes <= 227 * 1024 then return true end
    return false, string.format("needs %d bytes of shared memory (Hopper allows 232448)",
      d.smem_bytes)
  end },
}

-- Returns true, or false with "rule 'NAME': message".
function M.validate(v)
  -- an axis with a default may be left out of a spec: it takes its default (in place)
  for _, axis in ipairs(M.axis_order) do
    if v[axis] == nil and M.axes[axis].default ~= nil then v[axis] = M.axes[axis].default end
  end
  for _, rule in ipairs(M.rules) do
    local ok, msg = rule.check(v)
    if not ok then return false, string.format("rule '%s': %s", rule.name, msg) end
  end
  return true
end

-- Cross product of a spec whose fields are lists, in axis order (deterministic).
local function expand(spec)
  local out = { {} }
  for _, axis in ipairs(M.axis_order) do
    local values = spec[axis]
    if values == nil then values = M.axes[axis].default end
    if type(values) ~= "table" then values = { values } end
    local next_out = {}
    for _, partial in ipairs(out) do
      for _, value in ipairs(values) do
        local v = {}
        for k, x in pairs(partial) do v[k] = x end
        v[axis] = value
        next_out[#next_out + 1] = v
      end
    end
    out = next_out
  end
  return out
end

local all_layouts = { "bshd", "bhsd" }
local all_modes = { "rtne", "rtna", "rtz" }

-- The default variant set: generated into generated/ and compiled ahead of time.
M.default_set = {
  -- gfx942: 2 Q tiles with 96-key tiles and the pre-transposed V (v_path=vt): per unit of
  -- 64 keys x 16 rows and wave the leanest form measured (bench/RESULTS.md, issue 13):
  -- 2 barriers per 3 units, no v_perm for V. 3 Q tiles with 64-key tiles spill (Q, O and S
  -- alone take 192 of the 256 VGPRs); 3 Q tiles with 32-key tiles pay 1.33 barriers per
  -- unit and stay in the search space.
  { target = "gfx942", head_dim = 128, layout = all_layouts, rounding = all_modes, q_tiles = 2,
    kv_tile = 96, waves = 8, kv_split = { "off", "tail" }, v_path = "vt", impl = "mfma" },
  -- gfx942 head_dim 64: Q and O take half the registers, so the KV tile grows to 128 keys
  -- (212-226 VGPRs; K double buffer 32 KiB of LDS). Of the shapes that fit, the lowest
  -- steady-state VALU per unit (attngen report --analyze; q3 kv96 is within 1%, q2 kv96
  -- 2% above); the softmax's VALU does not shrink with head_dim while the MFMA work halves,
  -- so these kernels are VALU-bound in the model (README).
  { target = "gfx942", head_dim = 64, layout = all_layouts, rounding = all_modes, q_tiles = 2,
    kv_tile = 128, waves = 8, kv_split = { "off", "tail" }, v_path = "vt", impl = "mfma" },
  -- gfx942 head_dim 256: Q (32 VGPRs per tile) and O (64) leave 64 VGPRs of the 256 at two Q
  -- tiles, so the KV tile is 32 keys (also the LDS limit, rule gfx942-head-dim-256) and V
  -- streams through a ring of 8 dwordx4 pieces; per 32-key tile the MFMA work of the head_dim
  -- 128 kernel's 64-key tile. The causal mask without the split, as at 128 and 64.
  { target = "gfx942", head_dim = 256, layout = all_layouts, rounding = all_modes, q_tiles = 2,
    kv_tile = 32, waves = 8, kv_split = { "off", "tail" }, v_path = "vt", impl = "mfma" },
  { target = "gfx942", head_dim = 256, layout = all_layouts, rounding = all_modes, q_tiles = 2,
    kv_tile = 32, waves = 8, kv_split = "off", v_path = "vt", mask = "causal", impl = "mfma" },
  -- gfx942 causal mask (mask = causal): the same kernels without the split; a block runs the
  -- KV tiles up to its diagonal, so its steady-state loop is the dense one.
  { target = "gfx942", head_dim = 128, layout = all_layouts, rounding = all_modes, q_tiles = 2,
    kv_tile = 96, waves = 8, kv_split = "off", v_path = "vt", mask = "causal", impl = "mfma" },
  { target = "gfx942", head_dim = 64, layout = all_layouts, rounding = all_modes, q_tiles = 2,
    kv_tile = 128, waves = 8, kv_split = "off", v_path = "vt", mask = "causal", impl = "mfma" },
  -- gfx942 tile skipping (skip = on, issue 27): the dense default's kernel with and without
  -- the tail split (its parts whole list words: a split needs more than 32 tiles, Skv > 3072),
  -- every layout and mode.
  { target = "gfx942", head_dim = 128, layout = all_layouts, rounding = all_modes, q_tiles = 2,
    kv_tile = 96, waves = 8, kv_split = { "off", "tail" }, v_path = "vt", skip = "on",
    impl = "mfma" },
  -- the same at head_dim 64 (the dense default's 128-key tiles: a split needs Skv > 4096) and
  -- 256 (32-key tiles: Skv > 1024)
  { target = "gfx942", head_dim = 64, layout = all_layouts, rounding = all_modes, q_tiles = 2,
    kv_tile = 128, waves = 8, kv_split = { "off", "tail" }, v_path = "vt", skip = "on",
    impl = "mfma" },
  { target = "gfx942", head_dim = 256, layout = all_layouts, rounding = all_modes, q_tiles = 2,
    kv_tile = 32, waves = 8, kv_split = { "off", "tail" }, v_path = "vt", skip = "on",
    impl = "mfma" },
  { target = "sm90", head_dim = 128, layout = all_layouts, rounding = all_modes, q_tiles = 1,
    kv_tile = 64, waves = 4, kv_split = "off", impl = "mma" },
  -- wgmma: 1 producer + 2 consumer warpgroups; on H200 (bench/RESULTS.md runs 1-2) kv_tile
  -- 176 ran 599-609 TFLOP/s on 8k-token self-attention where 128 ran 565-589. The shorter
  -- tiles (64, 96, 144) let the dispatcher cover short KV ranges with little padding
  -- (Skv 257: 2 x 144 = 288 keys computed instead of 3 x 128 = 384).
  -- Loads through TMA (load = tma): one producer thread, 24/240 registers (issue 12).
  { target = "sm90", head_dim = 128, layout = all_layouts, rounding = all_modes, q_tiles = 1,
    kv_tile = { 64, 96, 128, 144, 176 }, waves = 12, kv_split = "off", load = "tma",
    impl = "wgmma" },
  -- The tail KV split (kv_split = tail, issue 24; runtime/src/split_plan.h): the same kernels
  -- at the tiles the wgmma-kv-tile rule picks where KV has the 8 tiles of two parts (128 for
  -- Skv 512-4096, 144 at some lengths between, e.g. 3000; 176 beyond),
  -- for grids whose last round leaves SMs idle (H200, 132 SMs: Flux (1,4,4608) has 144 jobs of
  -- 128 rows, two rounds for 1.09 rounds of work; the dispatcher takes them only when the plan
  -- splits).
  -- The same for head_dim 64 (the dense set's kv 128 with two and three consumers) and 256
  -- (kv 64 and 80): no spills at any of them (ptxas -v).
  { target = "sm90", head_dim = 128, layout = all_layouts, rounding = all_modes, q_tiles = 1,
    kv_tile = { 128, 144, 176 }, waves = 12, kv_split = "tail", load = "tma", impl = "wgmma" },
  { target = "sm90", head_dim = 64, layout = all_layouts, rounding = all_modes, q_tiles = 1,
    kv_tile = 128, waves = { 12, 16 }, kv_split = "tail", load = "tma", impl = "wgmma" },
  { target = "sm90", head_dim = 256, layout = all_layouts, rounding = all_modes, q_tiles = 1,
    kv_tile = { 64, 80 }, waves = 12, kv_split = "tail", load = "tma", impl = "wgmma" },
  -- Tile skipping (skip = on, issue 27): the TMA kernel with the dense default's long-KV tile
  -- (176) and 128, every layout and mode, with and without the tail split (Wan 1.3B's 12 heads
  -- at 32760 tokens: 3072 q-jobs, the last round 36 of 132 SMs).
  { target = "sm90", head_dim = 128, layout = all_layouts, rounding = all_modes, q_tiles = 1,
    kv_tile = { 128, 176 }, waves = 12, kv_split = { "off", "tail" }, load = "tma", skip = "on",
    impl = "wgmma" },
  -- The causal mask (mask = causal): the 128-key TMA kernel, every layout and mode.
  { target = "sm90", head_dim = 128, layout = all_layouts, rounding = all_modes, q_tiles = 1,
    kv_tile = 128, waves = 12, kv_split = "off", load = "tma", mask = "causal",
    impl = "wgmma" },
  -- head_dim 64 (SD3, small LLMs): the same kernel with one 64-column box per row, 128-key
  -- tiles; three consumer warpgroups (waves = 16, 192 rows per job) where there are jobs
  -- enough, two (waves = 12, 128 rows) for few jobs (the waves-fill rule); the causal mask
  -- with both, chosen by modelled time (rows past the diagonal, the longest job; H200 run
  -- M65: three consumers 0.86-0.92 of two's time on long causal shapes, 1.05-1.17 on short).
  -- H200 runs H8/H10: w16 kv128 0.87-0.88x FA3 on long shapes where w12 kv128/176 ran
  -- 0.79-0.87x (SD3 (2,24,4429): 439 vs 405 TFLOP/s); 64-key tiles spill 4 bytes at w12.
  { target = "sm90", head_dim = 64, layout = all_layouts, rounding = all_modes, q_tiles = 1,
    kv_tile = 128, waves = { 12, 16 }, kv_split = "off", load = "tma", impl = "wgmma" },
  { target = "sm90", head_dim = 64, layout = all_layouts, rounding = all_modes, q_tiles = 1,
    kv_tile = 128, waves = { 12, 16 }, kv_split = "off", load = "tma", mask = "causal",
    impl = "wgmma" },
  -- head_dim 256 (Gemma; rule sm90-head-dim-256-kv-tile): 64-key tiles (2 stages, one Q and one
  -- O buffer) and FlashAttention-3's 80 (2 stages, one Q buffer, O from registers); the causal
  -- mask with 64 (80 spills). 128 O registers per consumer thread, no spills (ptxas -v).
  { target = "sm90", head_dim = 256, layout = all_layouts, rounding = all_modes, q_tiles = 1,
    kv_tile = { 64, 80 }, waves = 12, kv_split = "off", load = "tma", impl = "wgmma" },
  { target = "sm90", head_dim = 256, layout = all_layouts, rounding = all_modes, q_tiles = 1,
    kv_tile = 64, waves = 12, kv_split = "off", load = "tma", mask = "causal",
    impl = "wgmma" },
  -- Tile skipping at head_dims 64 and 256 (skip = on, issue 27): the dense sets' long-KV
  -- tiles (64: 128 keys, three consumers; 256: 80 keys), with and without the tail split.
  -- ptxas: 0-12 bytes spilled, in the 24-register producer (as the head_dim-128 skip kernels).
  { target = "sm90", head_dim = 64, layout = all_layouts, rounding = all_modes, q_tiles = 1,
    kv_tile = 128, waves = 16, kv_split = { "off", "tail" }, load = "tma", skip = "on",
    impl = "wgmma" },
  { target = "sm90", head_dim = 256, layout = all_layouts, rounding = all_modes, q_tiles = 1,
    kv_tile = 80, waves = 12, kv_split = { "off", "tail" }, load = "tma", skip = "on",
    impl = "wgmma" },
}

-- The tuning search space per target, a list of specs each (variants outside the default
-- set are JIT-compiled on first use).
M.search_space = {
  gfx942 = {
    { target = "gfx942", head_dim = 128, layout = all_layouts, rounding = all_modes,
      q_tiles = { 2, 3 }, kv_tile = { 32, 64, 96 }, waves = 8, kv_split = { "off", "tail" },
      v_path = { "perm", "vt" }, impl = "mfma" },
    -- head_dim 64: tiles that fit (gfx942-vgpr-budget), without the 32-key ones (1.3x the
    -- VALU cycles per unit of the 128-key tile) and q2 kv96 (between q2 kv128 and q3 kv96);
    -- the perm V path (no pre-pass) at the default tile only: it costs 1.10-1.17x the VALU
    -- cycles of vt per unit, and each variant adds emulator time to CI
    -- (test_emu_numerics --search-space).
    { target = "gfx942", head_dim = 64, layout = all_layouts, rounding = all_modes,
      q_tiles = 2, kv_tile = { 64, 128 }, waves = 8, kv_split = { "off", "tail" },
      v_path = "vt", impl = "mfma" },
    { target = "gfx942", head_dim = 64, layout = all_layouts, rounding = all_modes,
      q_tiles = 3, kv_tile = { 64, 96 }, waves = 8, kv_split = { "off", "tail" },
      v_path = "vt", impl = "mfma" },
    { target = "gfx942", head_dim = 64, layout = all_layouts, rounding = all_modes,
      q_tiles = 2, kv_tile = 128, waves = 8, kv_split = { "off", "tail" }, v_path = "perm",
      impl = "mfma" },
    -- head_dim 256: the one shape that fits (rules gfx942-head-dim-256, gfx942-vgpr-budget),
    -- the default set's
    { target = "gfx942", head_dim = 256, layout = all_layouts, rounding = all_modes,
      q_tiles = 2, kv_tile = 32, waves = 8, kv_split = { "off", "tail" }, v_path = "vt",
      mask = { "none", "causal" }, impl = "mfma" },
    -- the causal mask at the default tiles (its steady-state loop is the dense kernel's, so
    -- the dense tiles' ranking carries over; each variant adds emulator time to CI)
    { target = "gfx942", head_dim = 128, layout = all_layouts, rounding = all_modes,
      q_tiles = 2, kv_tile = 96, waves = 8, kv_split = "off", v_path = "vt", mask = "causal",
      impl = "mfma" },
    { target = "gfx942", head_dim = 64, layout = all_layouts, rounding = all_modes,
      q_tiles = 2, kv_tile = 128, waves = 8, kv_split = "off", v_path = "vt", mask = "causal",
      impl = "mfma" },
  },
  sm90 = {
    { target = "sm90", head_dim = 128, layout = all_layouts, rounding = all_modes, q_tiles = 1,
      kv_tile = { 64, 128 }, waves = { 4, 8 }, kv_split = "off", impl = "mma" },
    { target = "sm90", head_dim = 128, layout = all_layouts, rounding = all_modes, q_tiles = 1,
      kv_tile = { 64, 96, 128, 144, 176 }, waves = 12, kv_split = "off",
      load = { "thread", "tma" }, mask = { "none", "causal" }, impl = "wgmma" },
    { target = "sm90", head_dim = 128, layout = all_layouts, rounding = all_modes, q_tiles = 1,
      kv_tile = { 64, 96, 128, 144, 176 }, waves = 12, kv_split = { "off", "tail" }, load = "tma",
      skip = "on", impl = "wgmma" },
    { target = "sm90", head_dim = 128, layout = all_layouts, rounding = all_modes, q_tiles = 1,
      kv_tile = { 64, 96, 128, 144, 176 }, waves = 12, kv_split = "tail", load = "tma",
      impl = "wgmma" },
    { target = "sm90", head_dim = 64, layout = all_layouts, rounding = all_modes, q_tiles = 1,
      kv_tile = { 64, 96, 128, 144, 176 }, waves = { 12, 16 }, kv_split = "off", load = "tma",
      mask = { "none", "causal" }, impl = "wgmma" },
    { target = "sm90", head_dim = 256, layout = all_layouts, rounding = all_modes, q_tiles = 1,
      kv_tile = { 64, 80 }, waves = 12, kv_split = "off", load = "tma",
      mask = { "none", "causal" }, impl = "wgmma" },
    { target = "sm90", head_dim = 64, layout = all_layouts, rounding = all_modes, q_tiles = 1,
      kv_tile = 128, waves = { 12, 16 }, kv_split = { "off", "tail" }, load = "tma",
      skip = "on", impl = "wgmma" },
    { target = "sm90", head_dim = 256, layout = all_layouts, rounding = all_modes, q_tiles = 1,
      kv_tile = { 64, 80 }, waves = 12, kv_split = { "off", "tail" }, load = "tma",
      skip = "on", impl = "wgmma" },
  },
}

-- Expands specs into validated variants; an invalid entry in a declared set is an error.
function M.expand_specs(specs)
  local out = {}
  for _, spec in ipairs(specs) do
    for _, v in ipairs(expand(spec)) do
      local ok, msg = M.validate(v)
      if not ok then error("attngen: declared variant " .. M.name(v) .. ": " .. msg, 0) end
      v.name = M.name(v)
      out[#out + 1] = v
    end
  end
  return out
end

function M.default_variants() return M.expand_specs(M.default_set) end

-- The search space keeps only the combinations that the rules accept (the rules are the
-- space's constraints).
function M.search_variants(target)
  local specs = M.search_space[target]
  if not specs then return nil end
  local out = {}
  for _, spec in ipairs(specs) do
    for _, v in ipairs(expand(spec)) do
      if M.validate(v) then
        v.name = M.name(v)
        out[#out + 1] = v
      end
    end
  end
  return out
end

return M
