#!/usr/bin/env node
import { main } from "./dist-bin/main.js";

main();
