-- generate.lua: variant -> source text, and the generated/ tree: sources per target, the
-- manifest (a C table of the default set that the runtime build compiles in), the C form of
-- the axes (variant_axes.h/.c: enums, names, the descriptor struct) and the build's list of
-- kernels (variants.cmake). The C side writes no axis value by hand.
local config = require("config")
local template = require("template")
local host = require("host")

local M = {}

M.targets = config.targets

-- Templates come from the copy embedded at build time, or from $ATTNGEN_TEMPLATE_DIR when
-- set (to try template edits without rebuilding).
local function read_template(path)
  local dir = os.getenv("ATTNGEN_TEMPLATE_DIR")
  if dir and dir ~= "" then return host.read_file(dir .. "/" .. path) end
  return host.read_embedded("templates/" .. path)
end

-- Axis values plus derived values: what a template sees and the manifest records.
function M.values(v)
  local f = config.family(v)
  local derived = require(f.module).derive(v)
  local values = {}
  for k, x in pairs(derived) do values[k] = x end
  for _, axis in ipairs(config.axis_order) do values[axis] = v[axis] end
  values.name = config.name(v)
  if values.softmax_step == nil then values.softmax_step = v.kv_tile end
  if values.score_fma == nil then values.score_fma = 0 end
  if values.var_entry == nil then values.var_entry = 0 end
  if values.packed == nil then values.packed = 0 end
  for _, key in ipairs({ "threads", "block_m", "smem_bytes", "softmax_step", "score_fma",
                         "var_entry", "packed" }) do
    if math.type(values[key]) ~= "integer" then
      error(string.format("attngen: %s.derive() must return integer '%s' (variant %s)", f.module,
        key, values.name), 0)
    end
  end
  return values
end

-- The template of a variant: its family's.
function M.template_of(v) return config.family(v).template end

function M.stamp(v)
  return string.format("// attngen %s | template templates/%s | variant %s | generated, do not edit",
    host.version, M.template_of(v), config.name(v))
end

-- Returns source text, or nil and a list of messages.
function M.source(v)
  local ok, msg = config.validate(v)
  if not ok then return nil, { string.format("variant %s: %s", config.name(v), msg) } end
  return template.expand(M.template_of(v), M.values(v), {
    read = read_template, variant = config.name(v), stamp = M.stamp(v) })
end

-- C entry: source for a canonical name -> text | nil, message.
function M.source_for_name(name)
  local v, err = config.parse(name)
  if not v then return nil, err end
  local text, errors = M.source(v)
  if not text then return nil, table.concat(errors, "\n") end
  return text
end

-- The fields of the C descriptor (attngen__variant_desc, after its name), in order: axis
-- values (enum ids for named axes) and launch geometry. The C struct, the manifest rows and
-- the generator core's reader (gen.c, through ATTNGEN__VARIANT_DESC_FIELDS) all follow it.
M.desc_fields = {
  { "target", "attngen__target" },
  { "layout", "attngen__layout (= attngen_layout)" },
  { "rounding", "attngen__rounding (= attngen_rounding)" },
  { "q_tiles", "16-row Q tiles per wave (gfx942) / warp (sm90)" },
  { "kv_tile", "KV rows per inner iteration" },
  { "waves", "waves (gfx942, 64 lanes) or warps (sm90, 32 lanes) per block" },
  { "kv_split", "attngen__kv_split" },
  { "impl", "attngen__impl" },
  { "threads", "threads per block" },
  { "block_m", "Q rows per block" },
  { "smem_bytes", "dynamic shared memory / LDS bytes requested at launch" },
  { "softmax_step", "keys per running-max update (P is rounded against that max): the CPU "
    .. "reference uses the same step" },
  { "ws_row_bytes", "tail KV split: workspace bytes per Q row of a part (0 without a split)" },
  { "score_fma", "softmax form: 1 = p = exp2(fma(s, scale_log2, -m)) rounded once, 0 = "
    .. "exp2(fl(s * scale_log2) - m), 2 = 1 for scale_log2 > 0 and 0 otherwise; the CPU "
    .. "reference follows it" },
  { "v_path", "attngen__v_path: VT = V pre-transposed into the workspace by a pre-pass "
    .. "launch of the kernel (kargs.vt_prepass = 1)" },
  { "load", "attngen__load: TMA = the kernel's parameter is attngen_kargs_tma (tensor maps "
    .. "of q, k, v encoded by the runtime at launch)" },
  { "mask", "attngen__mask: CAUSAL = the kernel applies the causal mask (kargs.causal = 1); "
    .. "a variant serves only calls with its mask" },
  { "head_dim", "elements per row of q, k, v and out (axis head_dim); a variant serves only "
    .. "calls with its head_dim (0 in a hand-made descriptor: 128)" },
  { "skip", "attngen__skip: ON = the kernel reads and writes tile skip lists (kargs.skip_*); a "
    .. "variant serves only calls with its skip (args.skip given or not)" },
  { "var_entry", "1 = the code object has a second kernel, NAME_var, that the runtime "
    .. "launches for calls with key lengths or packed batches (kargs.kv_len, kargs.cu_q); NAME "
    .. "is built without that code" },
  { "packed", "1 = the kernel takes packed variable-length batches (kargs.cu_q, args.cu_seqlens_q); "
    .. "a packed call runs only on such variants" },
}

-- Descriptor values of a variant: field -> integer (enum ids for named axes).
function M.desc_values(v)
  local d = M.values(v)
  local out = {}
  for _, f in ipairs(M.desc_fields) do
    local key = f[1]
    local a = config.axes[key]
    if a and a.c_enum then
      out[key] = a.ids[v[key]]
    elseif key == "ws_row_bytes" then
      out[key] = v.kv_split == "tail" and d.ws_row_floats * 4 or 0
    else
      out[key] = d[key]
    end
    if math.type(out[key]) ~= "integer" then
      error(string.format("attngen: descriptor field '%s' of %s is not an integer", key, d.name), 0)
    end
  end
  return out
end

-- C entry: descriptor values for a canonical name -> table | nil, message.
function M.desc_for_name(name)
  local v, err = config.parse(name)
  if not v then return nil, err end
  local ok, msg = config.validate(v)
  if not ok then return nil, string.format("variant %s: %s", name, msg) end
  return M.desc_values(v)
end

local function enum_name(axis, value)
  return string.format("ATTNGEN__%s_%s", config.axes[axis].c_enum, tostring(value):upper())
end

local function c_string_list(values, sep)
  local t = {}
  for i, x in ipairs(values) do t[i] = tostring(x) end
  return '"' .. table.concat(t, sep) .. '"'
end

-- generated/variant_axes.h: enums and names of the named axes, per-target facts, and the
-- descriptor struct with its field list (an X-macro).
function M.axes_header()
  local L = {
    string.format("/* attngen %s | variant axes of generator/lua/config.lua | generated, do not edit */",
      host.version),
    "#ifndef ATTNGEN_VARIANT_AXES_H",
    "#define ATTNGEN_VARIANT_AXES_H",
    "",
  }
  local named = {}
  for _, axis in ipairs(config.axis_order) do
    if config.axes[axis].c_enum then named[#named + 1] = axis end
  end
  for _, axis in ipairs(named) do
    local a = config.axes[axis]
    local items = {}
    for i, value in ipairs(a.values) do items[i] = string.format("%s = %d", enum_name(axis, value), i - 1) end
    items[#items + 1] = string.format("ATTNGEN__%s_COUNT = %d", a.c_enum, #a.values)
    L[#L + 1] = string.format("/* axis %s */", axis)
    L[#L + 1] = string.format("typedef enum { %s } attngen__%s;", table.concat(items, ", "), axis)
    L[#L + 1] = string.format("extern const char *const attngen__%s_names[ATTNGEN__%s_COUNT];", axis,
      a.c_enum)
    L[#L + 1] = string.format("#define ATTNGEN__%s_LIST %s /* for messages */", a.c_enum,
      c_string_list(a.values, ", "))
    L[#L + 1] = string.format("#define ATTNGEN__%s_CHOICES %s /* for usage texts */", a.c_enum,
      c_string_list(a.values, "|"))
    for _, value in ipairs(a.values) do
      L[#L + 1] = string.format('#define %s_NAME "%s"', enum_name(axis, value), value)
    end
    L[#L + 1] = ""
  end
  L[#L + 1] = "/* per target (attngen__target): compiled-for architecture, GPU backend */"
  L[#L + 1] = "extern const char *const attngen__target_arch[ATTNGEN__TARGET_COUNT];"
  L[#L + 1] = "extern const char *const attngen__target_backend[ATTNGEN__TARGET_COUNT];"
  L[#L + 1] = ""
  L[#L + 1] = "/* Axis values and derived launch geometry of one variant. */"
  L[#L + 1] = "typedef struct attngen__variant_desc {"
  L[#L + 1] = "  const char *name; /* canonical name = kernel symbol = generated file stem */"
  for _, f in ipairs(M.desc_fields) do
    L[#L + 1] = string.format("  int %s; /* %s */", f[1], f[2])
  end
  L[#L + 1] = "} attngen__variant_desc;"
  L[#L + 1] = ""
  L[#L + 1] = "/* X(field) for every int field of attngen__variant_desc, in order. */"
  local xs = {}
  for i, f in ipairs(M.desc_fields) do xs[i] = string.format("X(%s)", f[1]) end
  L[#L + 1] = "#define ATTNGEN__VARIANT_DESC_FIELDS(X) " .. table.concat(xs, " ")
  L[#L + 1] = ""
  L[#L + 1] = "#endif /* ATTNGEN_VARIANT_AXES_H */"
  return table.concat(L, "\n") .. "\n"
end

-- generated/variant_axes.c: the name tables declared in variant_axes.h.
function M.axes_source()
  local L = {
    string.format("/* attngen %s | variant axes of generator/lua/config.lua | generated, do not edit */",
      host.version),
    '#include "variant_axes.h"',
    "",
  }
  for _, axis in ipairs(config.axis_order) do
    local a = config.axes[axis]
    if a.c_enum then
      L[#L + 1] = string.format("const char *const attngen__%s_names[ATTNGEN__%s_COUNT] = {%s};",
        axis, a.c_enum, c_string_list(a.values, '", "'))
    end
  end
  local arch, backend = {}, {}
  for i, t in ipairs(config.axes.target.values) do
    arch[i] = config.targets[t].arch
    backend[i] = config.targets[t].backend
  end
  L[#L + 1] = string.format("const char *const attngen__target_arch[ATTNGEN__TARGET_COUNT] = {%s};",
    c_string_list(arch, '", "'))
  L[#L + 1] = string.format(
    "const char *const attngen__target_backend[ATTNGEN__TARGET_COUNT] = {%s};",
    c_string_list(backend, '", "'))
  return table.concat(L, "\n") .. "\n"
end

-- generated/variants.cmake: what the build needs to know about the default set without
-- reading sources (the emulator's table lists NAME_merge for the kv_split=tail variants).
function M.build_lists(variants)
  local merge = {}
  for _, v in ipairs(variants) do
    if v.kv_split == "tail" then merge[#merge + 1] = "  " .. v.name end
  end
  return string.format("# attngen %s | the default set for the build | generated, do not edit\n"
    .. "# Variants with a NAME_merge kernel (kv_split=tail).\n"
    .. "set(ATTNGEN_MERGE_VARIANTS\n%s)\n", host.version, table.concat(merge, "\n") .. "\n")
end

-- C entry: names of the tuning search space of a target.
function M.search_space_names(target)
  local vs = config.search_variants(target)
  if not vs then return nil, string.format("unknown target '%s'", tostring(target)) end
  local names = {}
  for i, v in ipairs(vs) do names[i] = v.name end
  return names
end

-- The manifest: a C table of the default set, one designated initializer per variant.
function M.manifest(variants)
  local lines = {
    string.format("/* attngen %s | manifest of the default variant set | generated, do not edit */",
      host.version),
    -- variant_axes.h (generated) defines attngen__variant_desc: generated/ includes only
    -- itself, so it sits below the generator core that declares the table (variant.h).
    "#include <stddef.h>",
    "",
    '#include "variant_axes.h"',
    "",
    "const attngen__variant_desc attngen__manifest[] = {",
  }
  for _, v in ipairs(variants) do
    local d = M.desc_values(v)
    local fields = { string.format('.name = "%s"', v.name) }
    for _, f in ipairs(M.desc_fields) do
      local key = f[1]
      local a = config.axes[key]
      fields[#fields + 1] = string.format(".%s = %s", key,
        (a and a.c_enum) and enum_name(key, v[key]) or tostring(d[key]))
    end
    lines[#lines + 1] = "  {" .. table.concat(fields, ", ") .. "},"
  end
  lines[#lines + 1] = "  {.name = 0} /* end */"
  lines[#lines + 1] = "};"
  lines[#lines + 1] = string.format("const size_t attngen__manifest_count = %d;", #variants)
  return table.concat(lines, "\n") .. "\n"
end

-- Writes `content` to `path` only when it differs; returns "written" | "unchanged".
local function write_if_changed(path, content)
  local old = host.read_file(path)
  if old == content then return "unchanged" end
  local ok, err = host.write_file(path, content)
  if not ok then error("attngen: cannot write " .. err, 0) end
  return "written"
end

-- Generates `variants` into out_dir. With full = true (the whole default set) it also
-- writes the manifest and removes stale sources. All sources are expanded first: if any
-- fails, every error is reported and nothing is written.
-- Returns a summary table {written, unchanged, removed, files} or nil, errors.
function M.generate(variants, out_dir, full)
  local outputs, errors = {}, {}
  for _, v in ipairs(variants) do
    local text, errs = M.source(v)
    if text then
      local t = config.targets[v.target]
      outputs[#outputs + 1] = { dir = out_dir .. "/" .. v.target,
        path = out_dir .. "/" .. v.target .. "/" .. v.name .. "." .. t.ext, text = text }
    else
      for _, e in ipairs(errs) do errors[#errors + 1] = e end
    end
  end
  if #errors > 0 then return nil, errors end
  if full then
    outputs[#outputs + 1] = { dir = out_dir, path = out_dir .. "/manifest.c",
      text = M.manifest(variants) }
    outputs[#outputs + 1] = { dir = out_dir, path = out_dir .. "/variant_axes.h",
      text = M.axes_header() }
    outputs[#outputs + 1] = { dir = out_dir, path = out_dir .. "/variant_axes.c",
      text = M.axes_source() }
    outputs[#outputs + 1] = { dir = out_dir, path = out_dir .. "/variants.cmake",
      text = M.build_lists(variants) }
  end
  local summary = { written = 0, unchanged = 0, removed = 0, files = {} }
  local keep = {}
  for _, o in ipairs(outputs) do
    local ok, err = host.mkdir_p(o.dir)
    if not ok then error("attngen: cannot create " .. err, 0) end
    local r = write_if_changed(o.path, o.text)
    summary[r] = summary[r] + 1
    summary.files[#summary.files + 1] = { path = o.path, status = r }
    keep[o.path] = true
  end
  if full then
    for target, t in pairs(config.targets) do
      local dir = out_dir .. "/" .. target
      local entries = host.is_dir(dir) and host.list_dir(dir) or {}
      table.sort(entries)
      for _, e in ipairs(entries) do
        local path = dir .. "/" .. e
        if e:sub(-(#t.ext + 1)) == "." .. t.ext and not keep[path] then
          local ok, err = host.remove(path)
          if not ok then error("attngen: cannot remove " .. err, 0) end
          summary.removed = summary.removed + 1
          summary.files[#summary.files + 1] = { path = path, status = "removed" }
        end
      end
    end
  end
  return summary
end

return M
