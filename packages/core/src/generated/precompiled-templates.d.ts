// Types of precompiled-templates.js (generated; see there).
export declare const precompiledTemplates: ReadonlyMap<string, (v: unknown, escapeFn: (value: unknown) => string) => string>;
