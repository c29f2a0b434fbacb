-- cli.lua: the generator's commands, `attngen generate` and `attngen list`.
-- Exit codes: 0 ok, 1 failure, 2 usage error.
local config = require("config")
local generate = require("generate")
local host = require("host")

local M = {}

local USAGE = {
  generate = [[
usage: attngen generate [--target T] [--variant NAME | --filter GLOB] [-o DIR] [-q]

Expands the kernel templates into one source file per variant, DIR/<target>/<name>.<ext>,
plus DIR/manifest.c (the C table of the default set). Without --variant/--filter the
whole default set is generated and stale sources in DIR/<target>/ are removed. Files are
rewritten only when their content changes. If any variant fails, every error is printed
and nothing is written.

  --target T      gfx942 | sm90 (default: all targets)
  --variant NAME  one variant by canonical name (may be outside the default set)
  --filter GLOB   only default-set variants whose name matches GLOB (* and ?)
  -o DIR          output directory (default: generated)
  -q              print only the summary line
]],
  list = [[
usage: attngen list [--target T] [--filter GLOB] [--search-space]

Prints the default variant set (or the tuning search space), one line per variant: the
canonical name and its axis values.
]],
}

local function usage_error(cmd, msg)
  host.stderr(string.format("attngen %s: %s\n%s", cmd, msg, USAGE[cmd]))
  return 2
end

local function glob_to_pattern(glob)
  local p = glob:gsub("[%^%$%(%)%%%.%[%]%+%-]", "%%%0"):gsub("%*", ".*"):gsub("%?", ".")
  return "^" .. p .. "$"
end

-- Parses options: spec maps option -> "flag" | "value". Returns opts or nil, message.
local function parse(argv, spec)
  local opts, i = {}, 2
  while i <= #argv do
    local a = argv[i]
    local kind = spec[a]
    if a == "--help" or a == "-h" then
      opts.help = true
    elseif kind == "flag" then
      opts[a] = true
    elseif kind == "value" then
      if i == #argv then return nil, string.format("option %s needs a value", a) end
      i = i + 1
      opts[a] = argv[i]
    else
      return nil, string.format("unknown argument '%s'", a)
    end
    i = i + 1
  end
  return opts
end

local function check_target(cmd, t)
  if t == nil or generate.targets[t] then return true end
  return false, string.format("--target: unknown target '%s' (allowed: gfx942, sm90)", t)
end

local function select_variants(opts, cmd)
  local vs = {}
  local source
  if opts["--search-space"] then
    source = {}
    for _, t in ipairs(config.axes.target.values) do
      for _, v in ipairs(config.search_variants(t)) do source[#source + 1] = v end
    end
  else
    source = config.default_variants()
  end
  local pattern = opts["--filter"] and glob_to_pattern(opts["--filter"])
  for _, v in ipairs(source) do
    if (not opts["--target"] or v.target == opts["--target"])
        and (not pattern or v.name:match(pattern)) then
      vs[#vs + 1] = v
    end
  end
  return vs
end

function M.generate(argv)
  local opts, err = parse(argv, { ["--target"] = "value", ["--variant"] = "value",
    ["--filter"] = "value", ["-o"] = "value", ["-q"] = "flag" })
  if not opts then return usage_error("generate", err) end
  if opts.help then io.write(USAGE.generate) return 0 end
  local ok, msg = check_target("generate", opts["--target"])
  if not ok then return usage_error("generate", msg) end
  if opts["--variant"] and opts["--filter"] then
    return usage_error("generate", "--variant and --filter exclude each other")
  end
  local out_dir = opts["-o"] or "generated"
  local variants, full
  if opts["--variant"] then
    local v, perr = config.parse(opts["--variant"])
    if not v then return usage_error("generate", "--variant: " .. perr) end
    local valid, why = config.validate(v)
    if not valid then
      host.stderr(string.format("attngen generate: error: variant %s: %s\n", opts["--variant"], why))
      return 1
    end
    if opts["--target"] and v.target ~= opts["--target"] then
      return usage_error("generate", "--variant is not of --target " .. opts["--target"])
    end
    v.name = config.name(v)
    variants, full = { v }, false
  else
    variants = select_variants(opts, "generate")
    full = not opts["--filter"] and not opts["--target"]
    if #variants == 0 then
      host.stderr("attngen generate: error: no variant matches\n")
      return 1
    end
  end
  local summary, errors = generate.generate(variants, out_dir, full)
  if not summary then
    for _, e in ipairs(errors) do host.stderr(e .. "\n") end
    host.stderr(string.format("attngen generate: %d error(s), nothing written\n", #errors))
    return 1
  end
  if not opts["-q"] then
    for _, f in ipairs(summary.files) do
      if f.status ~= "unchanged" then io.write(string.format("%-9s %s\n", f.status, f.path)) end
    end
  end
  io.write(string.format("attngen generate: %d variant(s): %d written, %d unchanged, %d removed\n",
    #variants, summary.written, summary.unchanged, summary.removed))
  return 0
end

function M.list(argv)
  local opts, err = parse(argv, { ["--target"] = "value", ["--filter"] = "value",
    ["--search-space"] = "flag" })
  if not opts then return usage_error("list", err) end
  if opts.help then io.write(USAGE.list) return 0 end
  local ok, msg = check_target("list", opts["--target"])
  if not ok then return usage_error("list", msg) end
  local vs = select_variants(opts, "list")
  for _, v in ipairs(vs) do
    local axes = {}
    for _, axis in ipairs(config.axis_order) do
      axes[#axes + 1] = string.format("%s=%s", axis, tostring(v[axis]))
    end
    io.write(string.format("%-52s %s\n", v.name, table.concat(axes, " ")))
  end
  io.write(string.format("%d variant(s)\n", #vs))
  return 0
end

function M.main(argv)
  local cmd = argv[1]
  if cmd == "generate" then return M.generate(argv) end
  if cmd == "list" then return M.list(argv) end
  host.stderr(string.format("attngen: unknown generator command '%s'\n", tostring(cmd)))
  return 2
end

return M
