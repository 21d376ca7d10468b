#!/usr/bin/env node
// `clusterspec-provisioner`: the reference provisioner of a cluster spec's burst (see README.md).
import { main } from "./dist/bin.js";

process.exitCode = await main(process.argv.slice(2));
