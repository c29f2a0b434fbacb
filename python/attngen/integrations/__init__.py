"""Backends for diffusion frameworks, each imported only when used (none of the frameworks
is a dependency): attngen.integrations.diffusers, .sglang, .xdit, .yunchang."""
