// The piece figures for a page whose own markup shows them (<use href="#art-…">), as a
// file of its own: the pages' Content-Security-Policy runs no inline script.

import { installArt } from "./art.js";

installArt();
