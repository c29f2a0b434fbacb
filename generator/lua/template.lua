-- template.lua: the template language. A template reads as HIP/CUDA source with
--   ${expr}            a Lua expression, replaced by its value
--   //$ statement      a whole line of Lua (loops unroll, ifs select)
--   //$ include "f"    the expanded text of templates/f, inline
-- A template compiles to a Lua chunk with exactly one Lua line per template line, so Lua's
-- own error positions are template positions. Names are looked up in a strict environment:
-- reading an unknown name is an error. Output carries #line directives back to the source.
local M = {}

local function fail(msg) error("attngen: " .. msg, 0) end

-- Finds the end of a ${...} expression starting at `open` (index of '$'); nil if unclosed.
local function expression_end(line, open)
  local depth, i, quote = 0, open + 1, nil
  while i <= #line do
    local c = line:sub(i, i)
    if quote then
      if c == "\\" then i = i + 1 elseif c == quote then quote = nil end
    elseif c == '"' or c == "'" then
      quote = c
    elseif c == "{" then
      depth = depth + 1
    elseif c == "}" then
      depth = depth - 1
      if depth == 0 then return i end
    end
    i = i + 1
  end
  return nil
end

-- Translates one text line into a Lua statement that emits it.
local function compile_text_line(line, lineno, path, errors)
  local parts, pos = {}, 1
  while true do
    local open = line:find("${", pos, true)
    if not open then break end
    local close = expression_end(line, open)
    if not close then
      errors[#errors + 1] = string.format("%s:%d: error: unclosed ${ expression", path, lineno)
      break
    end
    parts[#parts + 1] = string.format("%q", line:sub(pos, open - 1))
    local expr = line:sub(open + 2, close - 1)
    if expr:match("^%s*$") then
      errors[#errors + 1] = string.format("%s:%d: error: empty ${} expression", path, lineno)
    end
    parts[#parts + 1] = string.format("__X(%d, %q, function() return (%s) end)", lineno, expr, expr)
    pos = close + 1
  end
  parts[#parts + 1] = string.format("%q", line:sub(pos))
  return string.format("__T(%d, %s)", lineno, table.concat(parts, ", "))
end

-- Compiles template text to a Lua function of the environment; errors are collected.
function M.compile(text, path, errors)
  local lua_lines = {}
  local lineno = 0
  for line in (text .. (text:sub(-1) == "\n" and "" or "\n")):gmatch("(.-)\n") do
    lineno = lineno + 1
    local stmt = line:match("^%s*//%$(.*)$")
    if stmt then
      lua_lines[#lua_lines + 1] = stmt
    else
      lua_lines[#lua_lines + 1] = compile_text_line(line, lineno, path, errors)
    end
  end
  local chunk, err = load(table.concat(lua_lines, "\n"), "=" .. path, "t")
  if not chunk then
    local where, msg = err:match("^(.-:%d+): (.*)$")
    errors[#errors + 1] = where and (where .. ": error: " .. msg) or (path .. ": error: " .. err)
    return nil
  end
  return chunk
end

local function format_value(v)
  local t = type(v)
  if t == "number" then
    if math.type(v) == "integer" then return string.format("%d", v) end
    if v == math.floor(v) and math.abs(v) < 2 ^ 53 then return string.format("%d", math.floor(v)) end
    return string.format("%.9g", v)
  elseif t == "string" then
    return v
  elseif t == "boolean" then
    return v and "true" or "false"
  end
  return nil
end

-- Expands template `path` (relative to templates/) with the given values.
-- opts: read(path) -> text | nil; variant (name for messages); stamp (first line) .
-- Returns text, or nil and a list of error messages.
function M.expand(path, values, opts)
  local errors, out = {}, {}
  local variant = opts.variant or "?"
  local expect_file, expect_line = nil, nil
  local cache = {}

  local function where_error(file, lineno, msg)
    errors[#errors + 1] = string.format("templates/%s:%d: error: %s (variant %s)", file, lineno,
      msg, variant)
  end

  local env = {}
  local current_file = { path }

  local function emit_line(file, lineno, text)
    if expect_file ~= file or expect_line ~= lineno then
      out[#out + 1] = string.format('#line %d "templates/%s"\n', lineno, file)
    end
    out[#out + 1] = text .. "\n"
    expect_file, expect_line = file, lineno + 1
  end

  local function run_file(file)
    local chunk = cache[file]
    if chunk == nil then
      local text = opts.read(file)
      if not text then
        local caller = current_file[#current_file]
        local info = debug.getinfo(3, "l")
        where_error(caller, info and info.currentline or 0,
          string.format("include: no template '%s'", file))
        return
      end
      local errs = {}
      chunk = M.compile(text, "templates/" .. file, errs) or false
      for _, e in ipairs(errs) do errors[#errors + 1] = e .. " (variant " .. variant .. ")" end
      cache[file] = chunk
    end
    if not chunk then return end
    current_file[#current_file + 1] = file
    debug.setupvalue(chunk, 1, env)
    local ok, err = pcall(chunk)
    current_file[#current_file] = nil
    if not ok then
      if type(err) == "table" then error(err, 0) end
      local where, msg = tostring(err):match("^templates/(.-:%d+): (.*)$")
      if where then
        errors[#errors + 1] = string.format("templates/%s: error: %s (variant %s)", where, msg,
          variant)
      else
        errors[#errors + 1] = string.format("templates/%s: error: %s (variant %s)", file,
          tostring(err), variant)
      end
    end
  end

  local builtins = {
    __T = function(lineno, ...)
      local pieces = table.pack(...)
      local s = {}
      for i = 1, pieces.n do s[i] = pieces[i] end
      emit_line(current_file[#current_file], lineno, table.concat(s))
    end,
    __X = function(lineno, expr, fn)
      local ok, v = pcall(fn)
      local file = current_file[#current_file]
      if not ok then
        local msg = tostring(v):gsub("^templates/.-:%d+: ", "")
        where_error(file, lineno, msg)
        return "?"
      end
      local s = format_value(v)
      if s == nil then
        where_error(file, lineno, string.format("${%s} is %s", expr, v == nil and "nil" or type(v)))
        return "?"
      end
      return s
    end,
    emit = function(s)
      out[#out + 1] = tostring(s)
      expect_file = nil
    end,
    include = function(file)
      run_file(file)
      expect_file = nil
    end,
    string = string, math = math, table = table, pairs = pairs, ipairs = ipairs,
    tostring = tostring, tonumber = tonumber, type = type, select = select,
    error = function(msg) error(msg, 2) end,
    assert = assert,
  }
  for k, v in pairs(builtins) do env[k] = v end
  for k, v in pairs(values) do env[k] = v end
  setmetatable(env, {
    __index = function(_, k) error(string.format("unknown name '%s'", tostring(k)), 2) end,
    __newindex = function(t, k, v) rawset(t, k, v) end,
  })

  if opts.stamp then out[#out + 1] = opts.stamp .. "\n" end
  run_file(path)
  if #errors > 0 then return nil, errors end
  return table.concat(out)
end

return M
