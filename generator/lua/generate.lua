-- generate.lua: variant -> source text, and the generated/ tree (sources per target plus
-- the manifest, a C table of the default set that the runtime build compiles in).
local config = require("config")
local template = require("template")
local host = require("host")

local M = {}

M.targets = {
  gfx942 = { template = "gfx942/attn_fwd.hip.in", ext = "hip", module = "target_gfx942" },
  sm90 = { template = "sm90/attn_fwd.cu.in", ext = "cu", module = "target_sm90" },
}

-- Templates come from the copy embedded at build time, or from $ATTNGEN_TEMPLATE_DIR when
-- set (to try template edits without rebuilding).
local function read_template(path)
  local dir = os.getenv("ATTNGEN_TEMPLATE_DIR")
  if dir and dir ~= "" then return host.read_file(dir .. "/" .. path) end
  return host.read_embedded("templates/" .. path)
end

-- Axis values plus derived values: what a template sees and the manifest records.
function M.values(v)
  local t = M.targets[v.target]
  local derived = require(t.module).derive(v)
  local values = {}
  for k, x in pairs(derived) do values[k] = x end
  for _, axis in ipairs(config.axis_order) do values[axis] = v[axis] end
  values.name = config.name(v)
  if values.softmax_step == nil then values.softmax_step = v.kv_tile end
  for _, key in ipairs({ "threads", "block_m", "smem_bytes", "softmax_step" }) do
    if math.type(values[key]) ~= "integer" then
      error(string.format("attngen: %s.derive() must return integer '%s' (variant %s)", t.module,
        key, values.name), 0)
    end
  end
  return values
end

-- The template of a variant: the target's, unless its module picks one per variant.
function M.template_of(v)
  local t = M.targets[v.target]
  local mod = require(t.module)
  return mod.template_for and mod.template_for(v) or t.template
end

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

-- C entry: descriptor values for a canonical name -> table | nil, message.
function M.desc_for_name(name)
  local v, err = config.parse(name)
  if not v then return nil, err end
  local ok, msg = config.validate(v)
  if not ok then return nil, string.format("variant %s: %s", name, msg) end
  local d = M.values(v)
  d.target_id = config.axes.target.ids[v.target]
  d.layout_id = config.axes.layout.ids[v.layout]
  d.rounding_id = config.axes.rounding.ids[v.rounding]
  d.kv_split_id = config.axes.kv_split.ids[v.kv_split]
  d.impl_id = config.axes.impl.ids[v.impl]
  return d
end

-- C entry: names of the tuning search space of a target.
function M.search_space_names(target)
  local vs = config.search_variants(target)
  if not vs then return nil, string.format("unknown target '%s'", tostring(target)) end
  local names = {}
  for i, v in ipairs(vs) do names[i] = v.name end
  return names
end

-- The manifest: a C table of the default set with axis values and launch geometry.
function M.manifest(variants)
  local lines = {
    string.format("/* attngen %s | manifest of the default variant set | generated, do not edit */",
      host.version),
    '#include "variant.h"',
    "",
    "const attngen__variant_desc attngen__manifest[] = {",
  }
  for _, v in ipairs(variants) do
    local d = M.values(v)
    lines[#lines + 1] = string.format(
      '  {"%s", %d, %d, %d, %d, %d, %d, %d, %d, %d, %d, %d, %d},', d.name,
      config.axes.target.ids[v.target], config.axes.layout.ids[v.layout],
      config.axes.rounding.ids[v.rounding], v.q_tiles, v.kv_tile, v.waves,
      config.axes.kv_split.ids[v.kv_split], config.axes.impl.ids[v.impl], d.threads, d.block_m,
      d.smem_bytes, d.softmax_step)
  end
  lines[#lines + 1] = "  {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0} /* end */"
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
      local t = M.targets[v.target]
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
    for target, t in pairs(M.targets) do
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
