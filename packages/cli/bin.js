#!/usr/bin/env node
import { main } from "./dist/main.js";

main();
