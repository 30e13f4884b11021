# Judge one TAP stream. Input: the stream. Variables: name, rc (exit status
# of the producer, "" if unknown), extra (a reason to fail, e.g. a splat).
# When anything failed, prints each failed check with the diagnostic line
# that came last before it (first, so a log cut in the middle still shows
# why), then the whole stream; always one summary line: "RESULT <name> <pass> <fail> <skip> <verdict> <why>".
BEGIN { planned = -1; n = 0; pass = 0; failc = 0; skipc = 0; bail = "" }
{ sub(/\r$/, ""); lines[++nl] = $0 }
/^1\.\.[0-9]+/ { planned = substr($1, 4) + 0; next }
/^ok( |$)/ {
	n++
	if ($0 ~ /# *[Ss][Kk][Ii][Pp]/) skipc++; else pass++
	next
}
/^#/ { lastdiag = $0 }
/^not ok( |$)/ {
	n++
	# TODO (TAP) and XFAIL (KTAP): a known failure
	if ($0 ~ /# *(TODO|XFAIL)/) pass++
	else {
		failc++
		failed = failed "    > " (lastdiag != "" ? lastdiag "\n    > " : "") $0 "\n"
	}
	next
}
/^Bail out!/ { bail = $0 }
END {
	why = ""
	if (planned < 0) { why = why "no TAP plan; " }
	else if (n != planned) { why = why "planned " planned " results, got " n "; " }
	if (bail != "") why = why bail "; "
	if (rc != "" && rc != 0) {
		why = why "exit status " rc (rc == 124 || rc == 143 ? " (timed out)" : "") "; "
	}
	if (extra != "") why = why extra "; "
	# Problems other than failed checks count as one more failure.
	if (why != "") failc++
	verdict = (failc == 0) ? "PASS" : "FAIL"
	if (verdict == "FAIL") {
		if (failed != "") printf "    failed checks, each after the last diagnostic before it:\n%s", failed
		for (i = 1; i <= nl; i++) print "    " lines[i]
	}
	sub(/; $/, "", why)
	printf "RESULT %s %d %d %d %s %s\n", name, pass, failc, skipc, verdict, why
}
