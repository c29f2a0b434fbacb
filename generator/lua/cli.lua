-- cli.lua: the work of the generator's commands, `attngen generate` and `attngen list`. The
-- command line is parsed in C against the commands' option tables (cli/cmd_generate.c); the
-- functions here get the parsed options, keyed by option name ("--target", "-o", ...; a flag
-- is true). Each returns the exit code (0 ok, 1 failure) or 2 and the message of a usage
-- error that only the generator can see (an invalid --variant name), which C prints.
local config = require("config")
local generate = require("generate")
local host = require("host")

local M = {}

local function glob_to_pattern(glob)
  local p = glob:gsub("[%^%$%(%)%%%.%[%]%+%-]", "%%%0"):gsub("%*", ".*"):gsub("%?", ".")
  return "^" .. p .. "$"
end

local function select_variants(opts)
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

function M.generate(opts)
  local out_dir = opts["-o"] or "generated"
  local variants, full
  if opts["--variant"] then
    local v, perr = config.parse(opts["--variant"])
    if not v then return 2, "--variant: " .. perr end
    local valid, why = config.validate(v)
    if not valid then
      host.stderr(string.format("attngen generate: error: variant %s: %s\n", opts["--variant"], why))
      return 1
    end
    if opts["--target"] and v.target ~= opts["--target"] then
      return 2, "--variant is not of --target " .. opts["--target"]
    end
    v.name = config.name(v)
    variants, full = { v }, false
  else
    variants = select_variants(opts)
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

function M.list(opts)
  local vs = select_variants(opts)
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

return M
