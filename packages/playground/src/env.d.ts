// The page runs in a browser: DOM types and Vite's import.meta.glob for the playground sources only.
/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
/// <reference types="vite/client" />
