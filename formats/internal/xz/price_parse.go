package xz

// The optimal parser (the LZMA SDK's GetOptimum): from the current position
// it prices every way to reach each of the next positions — literal, short
// rep, rep0–3 and match of each length, and the two-step literal+rep0 and
// match/rep+literal+rep0 — keeps the cheapest path to each, and codes that
// path's symbols one by one.

// optimal is the cheapest known way to reach one position of the parse.
type optimal struct {
	price     uint32
	state     int
	prev1Lit  bool   // the path ends with a literal after posPrev
	prev2     bool   // and before that literal a match or rep (backPrev2 at posPrev2)
	posPrev2  uint32 //
	backPrev2 uint32
	posPrev   uint32 // where the last symbol starts
	backPrev  uint32 // its back: noMatch, a rep index, or numReps + distance-1
	backs     [numReps]uint32
}

func (o *optimal) asLiteral()       { o.backPrev, o.prev1Lit = noMatch, false }
func (o *optimal) asShortRep()      { o.backPrev, o.prev1Lit = 0, false }
func (o *optimal) isShortRep() bool { return o.backPrev == 0 }

// readMatches finds the matches of the match finder's next position into
// matchBuf and returns the longest length, extended past nice when it
// reaches nice.
func (e *lzmaEnc) readMatches() (longest, numPairs int) {
	e.avail = e.mf.avail()
	e.matchBuf = e.mf.matches(e.matchBuf[:0])
	numPairs = len(e.matchBuf)
	if numPairs > 0 {
		longest = int(e.matchBuf[numPairs-2])
		if longest == e.nice {
			p := e.mf.i - 1
			d := int(e.matchBuf[numPairs-1]) + 1
			limit := min(e.avail, maxMatchLen)
			longest = extend(e.buf[p:], e.buf[p-d:], longest, limit)
		}
	}
	e.ahead++
	return longest, numPairs
}

func (e *lzmaEnc) movePos(n int) {
	if n > 0 {
		e.ahead += n
		e.mf.skip(n)
	}
}

func (e *lzmaEnc) repLen1Price(state, posState int) uint32 {
	return price0(e.m.isRepG0[state]) + price0(e.m.isRep0Long[state][posState])
}

func (e *lzmaEnc) pureRepPrice(rep uint32, state, posState int) uint32 {
	if rep == 0 {
		return price0(e.m.isRepG0[state]) + price1(e.m.isRep0Long[state][posState])
	}
	price := price1(e.m.isRepG0[state])
	if rep == 1 {
		return price + price0(e.m.isRepG1[state])
	}
	return price + price1(e.m.isRepG1[state]) + priceBit(e.m.isRepG2[state], rep-2)
}

func (e *lzmaEnc) repPrice(rep uint32, n, state, posState int) uint32 {
	return e.repLenP.prices[posState][n-minMatchLen] + e.pureRepPrice(rep, state, posState)
}

func (e *lzmaEnc) matchDistPrice(d uint32, n int) uint32 {
	ls := lenToState(n)
	if d < numFullDistances {
		return e.distPrices[ls][d]
	}
	return e.slotPrices[ls][posSlotOf(d)] + e.alignPrices[d&(alignSize-1)]
}

func (e *lzmaEnc) literalPriceAt(pos, state int, match byte) uint32 {
	probs := e.litProbs(pos)
	if isLiteralState(state) {
		return literalPrice(probs, e.buf[pos])
	}
	return matchedLiteralPrice(probs, e.buf[pos], match)
}

// optimum returns the next symbol to code at pos: its back and length.
func (e *lzmaEnc) optimum() (uint32, int) {
	opt := e.opt
	if e.optEnd != e.optCur {
		o := &opt[e.optCur]
		n := int(o.posPrev) - e.optCur
		back := o.backPrev
		e.optCur = int(o.posPrev)
		return back, n
	}
	e.optCur, e.optEnd = 0, 0

	var mainLen, numPairs int
	if e.ahead == 0 {
		mainLen, numPairs = e.readMatches()
	} else {
		mainLen, numPairs = e.longest, e.numPairs
	}
	matches := e.matchBuf
	numAvail := e.avail
	if numAvail < 2 {
		return noMatch, 1
	}
	numAvail = min(numAvail, maxMatchLen)

	buf := e.buf
	pos := e.pos
	data := buf[pos:]
	var reps, repLens [numReps]int
	repMax := 0
	for i := range numReps {
		reps[i] = int(e.reps[i])
		d := pos - reps[i] - 1
		if data[0] != buf[d] || data[1] != buf[d+1] {
			repLens[i] = 0
			continue
		}
		n := 2
		n = extend(data, buf[d:], n, numAvail)
		repLens[i] = n
		if n > repLens[repMax] {
			repMax = i
		}
	}
	if repLens[repMax] >= e.nice {
		n := repLens[repMax]
		e.movePos(n - 1)
		return uint32(repMax), n
	}
	if mainLen >= e.nice {
		e.movePos(mainLen - 1)
		return matches[numPairs-1] + numReps, mainLen
	}
	curByte := data[0]
	matchByte := buf[pos-reps[0]-1]
	if mainLen < 2 && curByte != matchByte && repLens[repMax] < 2 {
		return noMatch, 1
	}

	state := e.state
	opt[0].state = state
	posState := pos & pbMask
	opt[1].price = price0(e.m.isMatch[state][posState]) + e.literalPriceAt(pos, state, matchByte)
	opt[1].asLiteral()

	matchPrice := price1(e.m.isMatch[state][posState])
	repMatchPrice := matchPrice + price1(e.m.isRep[state])
	if matchByte == curByte {
		p := repMatchPrice + e.repLen1Price(state, posState)
		if p < opt[1].price {
			opt[1].price = p
			opt[1].asShortRep()
		}
	}
	lenEnd := max(mainLen, repLens[repMax])
	if lenEnd < 2 {
		return opt[1].backPrev, 1
	}
	opt[1].posPrev = 0
	for i := range numReps {
		opt[0].backs[i] = uint32(reps[i])
	}
	for n := lenEnd; n >= 2; n-- {
		opt[n].price = infinityPrice
	}
	for i := range numReps {
		repLen := repLens[i]
		if repLen < 2 {
			continue
		}
		price := repMatchPrice + e.pureRepPrice(uint32(i), state, posState)
		for ; repLen >= 2; repLen-- {
			p := price + e.repLenP.prices[posState][repLen-minMatchLen]
			if o := &opt[repLen]; p < o.price {
				o.price, o.posPrev, o.backPrev, o.prev1Lit = p, 0, uint32(i), false
			}
		}
	}
	normalMatchPrice := matchPrice + price0(e.m.isRep[state])
	n := 2
	if repLens[0] >= 2 {
		n = repLens[0] + 1
	}
	if n <= mainLen {
		offs := 0
		for n > int(matches[offs]) {
			offs += 2
		}
		for ; ; n++ {
			d := matches[offs+1]
			p := normalMatchPrice + e.matchLenP.prices[posState][n-minMatchLen] + e.matchDistPrice(d, n)
			if o := &opt[n]; p < o.price {
				o.price, o.posPrev, o.backPrev, o.prev1Lit = p, 0, d+numReps, false
			}
			if n == int(matches[offs]) {
				offs += 2
				if offs == numPairs {
					break
				}
			}
		}
	}

	cur := 0
	for {
		cur++
		if cur == lenEnd {
			return e.backward(cur)
		}
		newLen, numPairs := e.readMatches()
		if newLen >= e.nice {
			e.numPairs, e.longest = numPairs, newLen
			return e.backward(cur)
		}
		pos++
		curOpt := &opt[cur]
		posPrev := int(curOpt.posPrev)
		var state int
		if curOpt.prev1Lit {
			posPrev--
			if curOpt.prev2 {
				state = opt[curOpt.posPrev2].state
				if curOpt.backPrev2 < numReps {
					state = stateRep(state)
				} else {
					state = stateMatch(state)
				}
			} else {
				state = opt[posPrev].state
			}
			state = stateLiteral(state)
		} else {
			state = opt[posPrev].state
		}
		if posPrev == cur-1 {
			if curOpt.isShortRep() {
				state = stateShortRep(state)
			} else {
				state = stateLiteral(state)
			}
		} else {
			var back uint32
			if curOpt.prev1Lit && curOpt.prev2 {
				posPrev = int(curOpt.posPrev2)
				back = curOpt.backPrev2
				state = stateRep(state)
			} else {
				back = curOpt.backPrev
				if back < numReps {
					state = stateRep(state)
				} else {
					state = stateMatch(state)
				}
			}
			prev := &opt[posPrev]
			if back < numReps {
				reps[0] = int(prev.backs[back])
				i := 1
				for ; i <= int(back); i++ {
					reps[i] = int(prev.backs[i-1])
				}
				for ; i < numReps; i++ {
					reps[i] = int(prev.backs[i])
				}
			} else {
				reps[0] = int(back - numReps)
				for i := 1; i < numReps; i++ {
					reps[i] = int(prev.backs[i-1])
				}
			}
		}
		curOpt.state = state
		for i := range numReps {
			curOpt.backs[i] = uint32(reps[i])
		}
		curPrice := curOpt.price
		nextIsLit := false
		data := buf[pos:]
		curByte := data[0]
		matchByte := buf[pos-reps[0]-1]
		posState := pos & pbMask

		curAnd1Price := curPrice + price0(e.m.isMatch[state][posState]) + e.literalPriceAt(pos, state, matchByte)
		next := &opt[cur+1]
		if curAnd1Price < next.price {
			next.price = curAnd1Price
			next.posPrev = uint32(cur)
			next.asLiteral()
			nextIsLit = true
		}
		matchPrice := curPrice + price1(e.m.isMatch[state][posState])
		repMatchPrice := matchPrice + price1(e.m.isRep[state])
		if matchByte == curByte && !(int(next.posPrev) < cur && next.backPrev == 0) {
			p := repMatchPrice + e.repLen1Price(state, posState)
			if p <= next.price {
				next.price = p
				next.posPrev = uint32(cur)
				next.asShortRep()
				nextIsLit = true
			}
		}
		numAvailFull := min(e.avail, numOpts-1-cur)
		if numAvailFull < 2 {
			continue
		}
		numAvail := min(numAvailFull, e.nice)

		if !nextIsLit && matchByte != curByte {
			// Literal + rep0.
			d := pos - reps[0] - 1
			limit := min(e.nice+1, numAvailFull)
			t := 1
			t = extend(data, buf[d:], t, limit)
			if n2 := t - 1; n2 >= 2 {
				state2 := stateLiteral(state)
				ps2 := (pos + 1) & pbMask
				p := curAnd1Price + price1(e.m.isMatch[state2][ps2]) + price1(e.m.isRep[state2]) +
					e.repPrice(0, n2, state2, ps2)
				off := cur + 1 + n2
				for lenEnd < off {
					lenEnd++
					opt[lenEnd].price = infinityPrice
				}
				if o := &opt[off]; p < o.price {
					o.price, o.posPrev, o.backPrev = p, uint32(cur+1), 0
					o.prev1Lit, o.prev2 = true, false
				}
			}
		}

		startLen := 2
		for ri := range numReps {
			d := pos - reps[ri] - 1
			if data[0] != buf[d] || data[1] != buf[d+1] {
				continue
			}
			n := 2
			n = extend(data, buf[d:], n, numAvail)
			for lenEnd < cur+n {
				lenEnd++
				opt[lenEnd].price = infinityPrice
			}
			price := repMatchPrice + e.pureRepPrice(uint32(ri), state, posState)
			for k := n; k >= 2; k-- {
				p := price + e.repLenP.prices[posState][k-minMatchLen]
				if o := &opt[cur+k]; p < o.price {
					o.price, o.posPrev, o.backPrev, o.prev1Lit = p, uint32(cur), uint32(ri), false
				}
			}
			if ri == 0 {
				startLen = n + 1
			}
			// Rep + literal + rep0.
			t := n + 1
			limit := min(t+e.nice, numAvailFull)
			t = extend(data, buf[d:], t, limit)
			if n2 := t - (n + 1); n2 >= 2 {
				p := price + e.repLenP.prices[posState][n-minMatchLen]
				lenEnd = e.litRep0After(lenEnd, cur, n, n2, stateRep(state), p, d, uint32(ri))
			}
		}

		matches := e.matchBuf
		if newLen > numAvail {
			newLen = numAvail
			numPairs = 0
			for newLen > int(matches[numPairs]) {
				numPairs += 2
			}
			matches[numPairs] = uint32(newLen)
			numPairs += 2
		}
		if newLen < startLen {
			continue
		}
		normalMatchPrice := matchPrice + price0(e.m.isRep[state])
		for lenEnd < cur+newLen {
			lenEnd++
			opt[lenEnd].price = infinityPrice
		}
		offs := 0
		for startLen > int(matches[offs]) {
			offs += 2
		}
		back := matches[offs+1]
		for n := startLen; ; n++ {
			p := normalMatchPrice + e.matchLenP.prices[posState][n-minMatchLen] + e.matchDistPrice(back, n)
			if o := &opt[cur+n]; p < o.price {
				o.price, o.posPrev, o.backPrev, o.prev1Lit = p, uint32(cur), back+numReps, false
			}
			if n != int(matches[offs]) {
				continue
			}
			// Match + literal + rep0.
			d := pos - int(back) - 1
			t := n + 1
			limit := min(t+e.nice, numAvailFull)
			t = extend(data, buf[d:], t, limit)
			if n2 := t - (n + 1); n2 >= 2 {
				lenEnd = e.litRep0After(lenEnd, cur, n, n2, stateMatch(state), p, d, back+numReps)
			}
			offs += 2
			if offs == numPairs {
				break
			}
			back = matches[offs+1]
		}
	}
}

// litRep0After prices, after a rep or match of n bytes from cur (back, from
// distance-1 d, leaving state at price), a literal and then rep0 of n2
// bytes, and keeps the path if it is the cheapest to cur+n+1+n2. It returns
// the parse's new end.
func (e *lzmaEnc) litRep0After(lenEnd, cur, n, n2, state int, price uint32, d int, back uint32) int {
	pos := e.pos + cur
	ps := (pos + n) & pbMask
	p := price + price0(e.m.isMatch[state][ps]) +
		matchedLiteralPrice(e.litProbs(pos+n), e.buf[pos+n], e.buf[d+n])
	state = stateLiteral(state)
	ps = (pos + n + 1) & pbMask
	p += price1(e.m.isMatch[state][ps]) + price1(e.m.isRep[state]) + e.repPrice(0, n2, state, ps)
	off := cur + n + 1 + n2
	for lenEnd < off {
		lenEnd++
		e.opt[lenEnd].price = infinityPrice
	}
	if o := &e.opt[off]; p < o.price {
		o.price, o.posPrev, o.backPrev = p, uint32(cur+n+1), 0
		o.prev1Lit, o.prev2 = true, true
		o.posPrev2, o.backPrev2 = uint32(cur), back
	}
	return lenEnd
}

// backward turns the cheapest path to cur into a forward list of symbols
// and returns the first.
func (e *lzmaEnc) backward(cur int) (uint32, int) {
	opt := e.opt
	posMem := opt[cur].posPrev
	backMem := opt[cur].backPrev
	e.optEnd = cur
	for {
		if opt[cur].prev1Lit {
			opt[posMem].asLiteral()
			opt[posMem].posPrev = posMem - 1
			if opt[cur].prev2 {
				opt[posMem-1].prev1Lit = false
				opt[posMem-1].posPrev = opt[cur].posPrev2
				opt[posMem-1].backPrev = opt[cur].backPrev2
			}
		}
		posPrev := posMem
		backCur := backMem
		backMem = opt[posPrev].backPrev
		posMem = opt[posPrev].posPrev
		opt[posPrev].backPrev = backCur
		opt[posPrev].posPrev = uint32(cur)
		cur = int(posPrev)
		if cur == 0 {
			break
		}
	}
	e.optCur = int(opt[0].posPrev)
	return opt[0].backPrev, e.optCur
}
