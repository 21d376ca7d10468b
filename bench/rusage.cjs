// Preloaded (node --require) into every process the bench spawns, the baseline included: on exit, append this
// process's own CPU time and peak RSS to $BENCH_RUSAGE. CommonJS so the baseline pays no ESM loader for it.
"use strict";
const file = process.env.BENCH_RUSAGE;
if (file)
  process.on("exit", () => {
    const u = process.resourceUsage();
    require("node:fs").appendFileSync(
      file,
      `${JSON.stringify({ cpu: (u.userCPUTime + u.systemCPUTime) / 1e6, sys: u.systemCPUTime / 1e6, rss: u.maxRSS * 1024 })}\n`,
    );
  });
