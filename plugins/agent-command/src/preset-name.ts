// The names of the command runner's presets, one per agent CLI it knows.

export type PresetName = 'claude' | 'codex' | 'gemini' | 'opencode';
