package dap

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ddmbridge/ddmbridge/dap/clientview"
	"github.com/ddmbridge/ddmbridge/dap/longreq"
	"github.com/ddmbridge/ddmbridge/ddm"
	"github.com/ddmbridge/ddmbridge/internal/framing"
	"github.com/ddmbridge/ddmbridge/jdwp"
	"github.com/ddmbridge/ddmbridge/jdwp/queue"
	godap "github.com/google/go-dap"
	"github.com/rs/zerolog"
)

// Config configures a Server. The zero value serves stand-alone sessions
// that dial VMs directly and log nothing.
type Config struct {
	// Backend opens VM connections for attach requests; nil means DirectBackend.
	Backend Backend
	// Logger receives the server's logs; component "dap" is added.
	Logger zerolog.Logger
	// TraceMessages logs every DAP message at trace level, kind "dap.msg".
	TraceMessages bool
	// JDWP are the options of the JDWP connections sessions make (its Logger
	// and Trace); timeouts are set per request by the session.
	JDWP jdwp.Options
	// DDM are the options of the DDM clients sessions attach themselves
	// (when the backend has none for the VM).
	DDM ddm.Options
	// RequestTimeout bounds the VM calls one request makes; 0 means 30 s.
	RequestTimeout time.Duration
	// EvalTimeout bounds the evaluation of a breakpoint's condition or log
	// message; 0 means 10 s. A method still running then is left to finish
	// and the hit does not stop.
	EvalTimeout time.Duration

	// beforeRequest, set by tests, runs before each request's handler (a
	// panic there tests the panic-to-error-response path).
	beforeRequest func(command string)
}

// Server serves DAP sessions. One Server may serve many sessions at once,
// each on its own stream.
type Server struct {
	cfg Config
	log zerolog.Logger
}

// NewServer returns a server with cfg.
func NewServer(cfg Config) *Server {
	if cfg.Backend == nil {
		cfg.Backend = DirectBackend{}
	}
	if cfg.RequestTimeout <= 0 {
		cfg.RequestTimeout = 30 * time.Second
	}
	return &Server{cfg: cfg, log: cfg.Logger.With().Str("component", "dap").Logger()}
}

// ServeConn runs one debug session over rwc (stdio, a socket, a pipe) until
// the client disconnects, the stream ends or ctx is cancelled, then releases
// the VM: a launched VM is terminated, an attached one is left running with
// every request cleared and nothing suspended. rwc is closed on return. The
// error is nil for a session that ended normally.
func (s *Server) ServeConn(ctx context.Context, rwc io.ReadWriteCloser) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ss := newSession(ctx, s, rwc)
	stop := context.AfterFunc(ctx, func() { rwc.Close() })
	defer stop()
	err := ss.run()
	ss.release()
	rwc.Close()
	ss.wg.Wait()
	return err
}

// session is one client and at most one debuggee.
type session struct {
	srv *Server
	cfg *Config
	log zerolog.Logger
	ctx context.Context // ends with the session

	rwc   io.ReadWriteCloser
	r     *bufio.Reader
	wmu   sync.Mutex // serialises writes and seq numbers; guards view
	w     *bufio.Writer
	seq   int
	codec *godap.Codec

	rmu     sync.Mutex // reverse requests waiting for the client's response
	reverse map[int]chan godap.Message

	wg sync.WaitGroup // goroutines that must end before ServeConn returns

	// Set by initialize.
	client      godap.InitializeRequestArguments
	view        clientview.View // the client's conventions (package clientview)
	initialized bool

	// current is the raw JSON of the request being handled (for fields
	// go-dap's types cannot tell absent from false), curSeq its seq.
	current []byte
	curSeq  int

	long *longreq.Tracker // cancellable requests and progress (package longreq)

	// inspect runs the requests that may run methods in the VM (evaluate,
	// variables, …) off the request loop, in order per thread, so a slow
	// one never delays threads, stackTrace, pause, continue or requests
	// about another thread.
	inspect *queue.Lanes[jdwp.ThreadID, func()]

	done     bool        // disconnect handled: stop reading
	closing  atomic.Bool // the session is ending: no more events
	released bool        // the VM was released

	dbg *debuggee // nil until launch or attach succeeds
	mon monitored // the monitor behind the debuggee (monitored.go)
}

func newSession(ctx context.Context, srv *Server, rwc io.ReadWriteCloser) *session {
	codec := godap.NewCodec()
	registerCustom(codec)
	s := &session{
		srv: srv, cfg: &srv.cfg, log: srv.log, ctx: ctx,
		rwc: rwc, r: bufio.NewReaderSize(rwc, framing.MaxHeaderLine), w: bufio.NewWriter(rwc),
		codec: codec, reverse: map[int]chan godap.Message{},
	}
	s.long = longreq.New(s.send)
	s.inspect = queue.NewLanes(func(_ jdwp.ThreadID, f func()) { f() }, func(f func()) {
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			f()
		}()
	})
	return s
}

// maxMessage bounds one message from the client.
const maxMessage = 64 << 20

// inbound is one decoded message, or why it could not be decoded.
type inbound struct {
	raw []byte
	msg godap.Message
	err error
}

// run reads messages on a reader goroutine and handles requests one at a time
// on this one, so a handler may wait for a reverse request's response.
func (s *session) run() error {
	in := make(chan inbound, 16)
	readErr := make(chan error, 1)
	go func() {
		defer close(in)
		for {
			raw, err := framing.ReadMessage(s.r, maxMessage)
			if err != nil {
				readErr <- err
				return
			}
			s.trace("in", raw)
			msg, derr := s.codec.DecodeMessage(raw)
			if resp, ok := msg.(godap.ResponseMessage); ok && derr == nil {
				s.routeResponse(resp)
				continue
			}
			if c, ok := msg.(*godap.CancelRequest); ok && derr == nil {
				s.onCancelRequest(c)
				continue
			}
			select {
			case in <- inbound{raw: raw, msg: msg, err: derr}:
			case <-s.ctx.Done():
				return
			}
		}
	}()
	for {
		select {
		case m, ok := <-in:
			if !ok {
				select {
				case err := <-readErr:
					if errors.Is(err, io.EOF) || s.ctx.Err() != nil {
						s.log.Debug().Msg("client closed the stream")
						return nil
					}
					return fmt.Errorf("dap: read from client: %w", err)
				default:
					return nil
				}
			}
			s.handle(m)
			if s.done {
				return nil
			}
		case <-s.ctx.Done():
			return nil
		}
	}
}

func (s *session) trace(dir string, raw []byte) {
	if s.cfg.TraceMessages {
		s.log.Trace().Str("kind", "dap.msg").Str("dir", dir).RawJSON("msg", raw).Msg("dap")
	}
}

// send writes one message with the next sequence number.
func (s *session) send(m godap.Message) { s.write(m, nil) }

// write sends m; register, if set, learns m's sequence number before m is
// on the wire (so a reverse request's response cannot overtake it).
func (s *session) write(m godap.Message, register func(seq int)) {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if why := s.view.Drop(m); why != "" {
		s.log.Debug().Str("event", m.(godap.EventMessage).GetEvent().Event).Msgf("event not sent: the client did not set %s", why)
		return
	}
	m = s.view.Out(m)
	s.seq++
	switch m := m.(type) {
	case godap.RequestMessage:
		m.GetRequest().Seq = s.seq
	case godap.ResponseMessage:
		m.GetResponse().Seq = s.seq
	case godap.EventMessage:
		m.GetEvent().Seq = s.seq
	}
	if register != nil {
		register(s.seq)
	}
	b, err := json.Marshal(m)
	if err != nil {
		s.log.Error().Err(err).Msgf("cannot encode %T", m)
		return
	}
	s.trace("out", b)
	if err := godap.WriteBaseMessage(s.w, b); err == nil {
		err = s.w.Flush()
		if err != nil {
			s.log.Debug().Err(err).Msg("write to client failed")
		}
	}
}

func newResponse(req *godap.Request) godap.Response {
	return godap.Response{
		ProtocolMessage: godap.ProtocolMessage{Type: "response"},
		Command:         req.Command,
		RequestSeq:      req.Seq,
		Success:         true,
	}
}

func newEvent(name string) godap.Event {
	return godap.Event{ProtocolMessage: godap.ProtocolMessage{Type: "event"}, Event: name}
}

// sendError answers req with an error response: id names the family, err says what failed.
func (s *session) sendError(req *godap.Request, id int, err error) {
	details, quiet := quietError(req.Command, s.explain(err))
	s.sendErrorShown(req.Seq, req.Command, id, details, showUser(id, nil) && !quiet)
}

func (s *session) sendErrorMessage(seq int, command string, id int, details string) {
	s.sendErrorShown(seq, command, id, details, showUser(id, nil))
}

// sendErrorShown answers with an error; show is the error's showUser.
func (s *session) sendErrorShown(seq int, command string, id int, details string, show bool) {
	summary := errorSummaries[id]
	if s.isCancelled(seq) {
		summary = "cancelled" // the message DAP prescribes for cancelled requests
	}
	s.log.Debug().Str("command", command).Int("id", id).Str("details", details).Msg("error response")
	s.send(&godap.ErrorResponse{
		Response: godap.Response{
			ProtocolMessage: godap.ProtocolMessage{Type: "response"},
			Command:         command, RequestSeq: seq, Success: false, Message: summary,
		},
		Body: godap.ErrorResponseBody{Error: &godap.ErrorMessage{
			Id: id, Format: fmt.Sprintf("%s: %s", summary, details), ShowUser: show,
		}},
	})
}

// reverseRequest sends a request to the client and waits for its response.
func (s *session) reverseRequest(ctx context.Context, req godap.RequestMessage) (godap.Message, error) {
	ch := make(chan godap.Message, 1)
	var seq int
	s.write(req, func(n int) {
		seq = n
		s.rmu.Lock()
		s.reverse[n] = ch
		s.rmu.Unlock()
	})
	select {
	case m := <-ch:
		return m, nil
	case <-ctx.Done():
		s.rmu.Lock()
		delete(s.reverse, seq)
		s.rmu.Unlock()
		return nil, ctx.Err()
	}
}

func (s *session) routeResponse(m godap.ResponseMessage) {
	seq := m.GetResponse().RequestSeq
	s.rmu.Lock()
	ch := s.reverse[seq]
	delete(s.reverse, seq)
	s.rmu.Unlock()
	if ch == nil {
		s.log.Debug().Int("request_seq", seq).Msg("response to no pending reverse request, ignored")
		return
	}
	ch <- m
}

// handle answers one inbound message. A panic in a handler becomes an error
// response; the session goes on.
func (s *session) handle(m inbound) {
	var hdr struct {
		Seq     int    `json:"seq"`
		Type    string `json:"type"`
		Command string `json:"command"`
	}
	if m.err != nil {
		json.Unmarshal(m.raw, &hdr)
		var fe *godap.DecodeProtocolMessageFieldError
		switch {
		case hdr.Type != "request":
			s.log.Warn().Err(m.err).Str("type", hdr.Type).Msg("undecodable message from the client, ignored")
		case errors.As(m.err, &fe) && fe.FieldName == "command":
			s.sendErrorMessage(hdr.Seq, hdr.Command, ErrUnsupportedCommand, fmt.Sprintf("the adapter does not implement %q", hdr.Command))
		default:
			s.sendErrorMessage(hdr.Seq, hdr.Command, ErrMalformedRequest, fmt.Sprintf("%s: %v", hdr.Command, m.err))
		}
		return
	}
	req, ok := m.msg.(godap.RequestMessage)
	if !ok {
		s.log.Warn().Msgf("unexpected %T from the client, ignored", m.msg)
		return
	}
	s.current = m.raw
	s.curSeq = req.GetRequest().Seq
	defer func() {
		s.long.Forget(s.curSeq)
	}()
	if s.isCancelled(s.curSeq) {
		r := req.GetRequest()
		s.sendErrorMessage(r.Seq, r.Command, ErrCancelled, r.Command+": cancelled before it started")
		return
	}
	defer func() {
		if p := recover(); p != nil {
			r := req.GetRequest()
			s.log.Error().Interface("panic", p).Str("command", r.Command).Str("stack", string(debug.Stack())).Msg("request handler panicked")
			s.sendErrorMessage(r.Seq, r.Command, ErrInternal, fmt.Sprintf("%s: %v (the session goes on; please report this)", r.Command, p))
		}
	}()
	if s.cfg.beforeRequest != nil {
		s.cfg.beforeRequest(req.GetRequest().Command)
	}
	if err := s.view.In(req); err != nil {
		r := req.GetRequest()
		s.sendErrorMessage(r.Seq, r.Command, ErrMalformedRequest, fmt.Sprintf("%s: %v", r.Command, err))
		return
	}
	s.dispatch(req)
}

// need is the debuggee state a request needs (Delve's grouping).
type need int

const (
	anyTime      need = iota // no debuggee needed
	withDebuggee             // a debuggee, running or stopped
	whenStopped              // a debuggee stopped (an event or a pause)
)

// route is how the adapter handles one request: the state it needs and
// the handler.
type route struct {
	need   need
	handle handler
}

// lanes lists the requests that run off the request loop, in order with
// the other requests of the same lane (the thread they concern, or 0): the
// ones that may run methods in the VM, which take as long as the methods.
var lanes = map[string]func(*session, godap.RequestMessage) jdwp.ThreadID{
	"variables":     varsLane,
	"evaluate":      frameLane,
	"setVariable":   varsLane,
	"setExpression": frameLane,
	"completions":   frameLane,
	"coroutines":    stoppedLane,

	"memoryView": memoryLane, "instanceCounts": memoryLane, "instances": memoryLane, "trackInstances": memoryLane, "allocations": memoryLane,
}

// handler runs a request's handler; takes reports whether a decoded
// request is of the type the handler takes.
type handler struct {
	run   func(*session, godap.RequestMessage)
	takes func(godap.RequestMessage) bool
}

func takes[R godap.RequestMessage](m godap.RequestMessage) bool { _, ok := m.(R); return ok }

// routes lists every request the adapter handles, once, by command. A
// command not listed is answered with ErrUnsupportedCommand. Handlers
// return their body or an error (reply), with what must follow the
// response (replyThen), or the resume that follows it (resumes); four answer
// themselves (on): launch and attach, under their own timeout and with the
// initialized event and the release of a half-made debuggee on failure;
// configurationDone, whose resume comes before its response and decides it;
// and disconnect, which ends the session whatever the release says.
var routes = map[string]route{
	"initialize": {anyTime, reply(ErrMalformedRequest, (*session).initialize)},
	"launch":     {anyTime, on((*session).onLaunchRequest)},
	"attach":     {anyTime, on((*session).onAttachRequest)},
	"disconnect": {anyTime, on((*session).onDisconnectRequest)},
	"attachVM":   {anyTime, reply(ErrUnableToStartDebugging, (*session).attachVM)},

	"terminate":               {withDebuggee, reply(ErrUnableToTerminate, (*session).terminate)},
	"configurationDone":       {withDebuggee, on((*session).onConfigurationDoneRequest)},
	"setBreakpoints":          {withDebuggee, beforeStops(reply(ErrUnableToSetBreakpoints, (*session).setBreakpoints))},
	"breakpointLocations":     {withDebuggee, reply(ErrUnableToSetBreakpoints, (*session).breakpointLocations)},
	"setFunctionBreakpoints":  {withDebuggee, beforeStops(reply(ErrUnableToSetBreakpoints, (*session).setFunctionBreakpoints))},
	"setExceptionBreakpoints": {withDebuggee, beforeStops(reply(ErrUnableToSetBreakpoints, (*session).setExceptionBreakpoints))},
	"setDataBreakpoints":      {withDebuggee, beforeStops(reply(ErrUnableToSetBreakpoints, (*session).setDataBreakpoints))},
	"threads":                 {anyTime, reply(ErrUnableToListThreads, (*session).threads)},
	"pause":                   {withDebuggee, replyThen(ErrUnableToPause, (*session).pause)},
	"source":                  {withDebuggee, reply(ErrUnableToSource, (*session).sourceOf)},
	"loadedSources":           {withDebuggee, reply(ErrUnableToSource, (*session).loadedSources)},
	"redefineClasses":         {withDebuggee, reply(ErrUnableToRedefine, (*session).redefineClasses)},
	"ddmUpdates":              {withDebuggee, replyThen(ErrNoDDM, (*session).ddmUpdates)},
	"ddmGC":                   {withDebuggee, reply(ErrNoDDM, (*session).ddmGC)},
	"ddmVM":                   {withDebuggee, reply(ErrNoDDM, (*session).ddmVM)},
	"dumpHeap":                {withDebuggee, reply(ErrUnableToDumpHeap, (*session).dumpHeap)},
	"memoryView":              {withDebuggee, reply(ErrUnableToListVariables, (*session).memoryView)},
	"trackInstances":          {withDebuggee, reply(ErrUnableToListVariables, (*session).trackInstances)},
	"allocations":             {withDebuggee, reply(ErrNoDDM, (*session).allocations)},

	"continue":           {whenStopped, resumes(ErrUnableToResume, (*session).cont)},
	"next":               {whenStopped, resumes(ErrUnableToResume, (*session).next)},
	"stepIn":             {whenStopped, resumes(ErrUnableToResume, (*session).stepIn)},
	"stepOut":            {whenStopped, resumes(ErrUnableToResume, (*session).stepOut)},
	"stepInTargets":      {whenStopped, reply(ErrUnableToStepInTargets, (*session).stepInTargets)},
	"stackTrace":         {whenStopped, reply(ErrUnableToStackTrace, (*session).stackTrace)},
	"scopes":             {whenStopped, reply(ErrUnableToListVariables, (*session).scopes)},
	"variables":          {whenStopped, reply(ErrUnableToListVariables, (*session).variablesOf)},
	"evaluate":           {whenStopped, reply(ErrUnableToEvaluate, (*session).evaluate)},
	"setVariable":        {whenStopped, reply(ErrUnableToSetVariable, (*session).setVariable)},
	"setExpression":      {whenStopped, reply(ErrUnableToSetVariable, (*session).setExpression)},
	"completions":        {whenStopped, reply(ErrUnableToComplete, (*session).completions)},
	"restartFrame":       {whenStopped, resumes(ErrUnableToResume, (*session).restartFrame)},
	"exceptionInfo":      {whenStopped, reply(ErrUnableToExceptionInfo, (*session).exceptionInfo)},
	"dataBreakpointInfo": {whenStopped, reply(ErrUnableToDataBreakpoint, (*session).dataBreakpointInfo)},
	"instanceCounts":     {whenStopped, reply(ErrUnableToListVariables, (*session).instanceCounts)},
	"instances":          {whenStopped, reply(ErrUnableToListVariables, (*session).instances)},
	"virtualThreads":     {whenStopped, reply(ErrUnableToListThreads, (*session).virtualThreads)},
	"coroutines":         {whenStopped, reply(ErrUnableToListThreads, (*session).coroutines)},
}

// on adapts a handler that answers the request itself.
func on[R godap.RequestMessage](f func(*session, R)) handler {
	return handler{run: func(s *session, m godap.RequestMessage) { f(s, m.(R)) }, takes: takes[R]}
}

// reply adapts a handler that returns its response's body or an error,
// under a context bounded by the request timeout and cancelled by a cancel
// request. An error is answered with the id a *requestError carries, else
// with id, and a message prefixed with the command.
func reply[R godap.RequestMessage, B any](id int, f func(*session, context.Context, R) (B, error)) handler {
	return replyThen(id, func(s *session, ctx context.Context, r R) (B, func(), error) {
		body, err := f(s, ctx, r)
		return body, nil, err
	})
}

// replyThen is reply for a handler whose request goes on after its
// response: then, when the handler returns one with its body, runs right
// after the success response was sent (the events that must follow it).
func replyThen[R godap.RequestMessage, B any](id int, f func(*session, context.Context, R) (B, func(), error)) handler {
	return handler{takes: takes[R], run: func(s *session, m godap.RequestMessage) {
		r := m.(R)
		ctx, cancel := s.reqCtxOf(r.GetRequest().Seq)
		defer cancel()
		body, then, err := f(s, ctx, r)
		if err != nil {
			s.answerError(r, id, err)
			return
		}
		s.send(&response[B]{Response: newResponse(r.GetRequest()), Body: body})
		if then != nil {
			then()
		}
	}}
}

// resumePlan is what a handler of a request that resumes leaves to the
// route once it has prepared the resume (a step request set, frames
// popped): thread, or the whole VM when 0, resumes after the response
// (no continued event follows: DAP says the request implies it); body,
// when not nil, is the response's body, told whether the thread resumes
// alone.
type resumePlan struct {
	thread jdwp.ThreadID
	body   func(alone bool) any
}

// resumes adapts a handler of a request that resumes the VM or a thread.
// The response goes first (once the VM runs, a stopped event may follow at
// once), and under the debuggee's stopMu with the resume, so no stop is
// reported in between: a stopped event the client reads before the answer
// was released by this resume, one it reads after holds.
func resumes[R godap.RequestMessage](id int, f func(*session, context.Context, R) (resumePlan, error)) handler {
	return handler{takes: takes[R], run: func(s *session, m godap.RequestMessage) {
		r := m.(R)
		rq := r.GetRequest()
		ctx, cancel := s.reqCtx()
		defer cancel()
		s.sayHeapWalk()
		plan, err := f(s, ctx, r)
		if err != nil {
			s.answerError(r, id, err)
			return
		}
		d := s.dbg
		d.t.StopMu.Lock()
		defer d.t.StopMu.Unlock()
		alone := plan.thread != 0 && d.t.HeldAlone(plan.thread)
		var body any
		if plan.body != nil {
			body = plan.body(alone)
		}
		s.send(&response[any]{Response: newResponse(rq), Body: body})
		s.resumeAfter(ctx, rq.Command, plan.thread, alone)
	}}
}

// beforeStops has a handler answer before any stop is reported: a
// breakpoint it sets may hit at once in a running VM, and the client must
// read the response with the breakpoint's id before a stopped event that
// names it.
func beforeStops(h handler) handler {
	run := h.run
	h.run = func(s *session, m godap.RequestMessage) {
		s.dbg.t.StopMu.Lock()
		defer s.dbg.t.StopMu.Unlock()
		run(s, m)
	}
	return h
}

// answerError answers rq with err: with the id a *requestError carries,
// else with id, and a message prefixed with the command unless the error
// says it is whole.
func (s *session) answerError(m godap.RequestMessage, id int, err error) {
	rq := m.GetRequest()
	eid, whole := id, false
	var re *requestError
	if errors.As(err, &re) {
		if re.id != 0 {
			eid = re.id
		}
		whole = re.whole
	}
	if !whole {
		err = fmt.Errorf("%s: %w", rq.Command, err)
	}
	details, quiet := quietError(rq.Command, s.explain(err))
	s.sendErrorShown(rq.Seq, rq.Command, eid, details, showUser(eid, m) && !quiet)
}

// response is a success response with a body of type B; it encodes as
// go-dap's own XxxResponse types do (a nil pointer body, for responses
// without one, is left out).
type response[B any] struct {
	godap.Response
	Body B `json:"body,omitempty"`
}

// GetBody and WithBody let the client's view convert the body
// (clientview.Bodied).
func (r *response[B]) GetBody() any { return r.Body }

func (r *response[B]) WithBody(b any) godap.Message {
	return &response[any]{Response: r.Response, Body: b}
}

// requestError is a request's failure when the route's error id or the
// command prefix do not fit: id, when not 0, is the DAP error id to answer
// with (errors.go); whole says the message is complete as it is.
type requestError struct {
	id    int
	err   error
	whole bool
}

// failWith answers with error id instead of the route's.
func failWith(id int, err error) error { return &requestError{id: id, err: err} }

// asIs answers with err's message as it is, without the command prefix.
func asIs(err error) error { return &requestError{err: err, whole: true} }

func (e *requestError) Error() string { return e.err.Error() }
func (e *requestError) Unwrap() error { return e.err }

// dispatch routes a request to its handler once the debuggee is in the
// state the request needs.
func (s *session) dispatch(req godap.RequestMessage) {
	rq := req.GetRequest()
	rt, ok := routes[rq.Command]
	if !ok {
		s.sendErrorMessage(rq.Seq, rq.Command, ErrUnsupportedCommand, fmt.Sprintf("the adapter does not implement %q", rq.Command))
		return
	}
	if rt.need >= withDebuggee && s.dbg == nil {
		s.sendErrorShown(rq.Seq, rq.Command, ErrNoDebuggee, fmt.Sprintf("%s needs a debuggee: send launch or attach first", rq.Command), showUser(ErrNoDebuggee, req))
		return
	}
	if rt.need == whenStopped && !s.dbg.isStopped() {
		s.sendErrorShown(rq.Seq, rq.Command, ErrNotStopped, fmt.Sprintf("%s needs the VM stopped; pause it or wait for a breakpoint", rq.Command), showUser(ErrNotStopped, req))
		return
	}
	lane := lanes[rq.Command]
	if lane == nil {
		s.userBusy()
		rt.handle.run(s, req)
		return
	}
	id := lane(s, req)
	if id != memoryLaneID {
		s.userBusy()
	}
	s.runInLane(id, rt, req)
}

// runInLane queues req on its inspect lane; the request loop goes on.
func (s *session) runInLane(lane jdwp.ThreadID, rt route, req godap.RequestMessage) {
	rq := req.GetRequest()
	seq := rq.Seq
	s.inspect.Push(lane, func() {
		defer func() {
			s.long.Forget(seq)
		}()
		if s.isCancelled(seq) {
			s.sendErrorMessage(seq, rq.Command, ErrCancelled, rq.Command+": cancelled before it started")
			return
		}
		defer func() {
			if p := recover(); p != nil {
				s.log.Error().Interface("panic", p).Str("command", rq.Command).Str("stack", string(debug.Stack())).Msg("request handler panicked")
				s.sendErrorMessage(seq, rq.Command, ErrInternal, fmt.Sprintf("%s: %v (the session goes on; please report this)", rq.Command, p))
			}
		}()
		rt.handle.run(s, req)
	})
}

// frameLane is the lane of a request about a frame: its thread's.
func frameLane(s *session, req godap.RequestMessage) jdwp.ThreadID {
	var id int
	switch r := req.(type) {
	case *godap.EvaluateRequest:
		id = r.Arguments.FrameId
	case *godap.SetExpressionRequest:
		id = r.Arguments.FrameId
	case *godap.CompletionsRequest:
		id = r.Arguments.FrameId
	}
	if f, ok := s.dbg.refs.frames.get(id); ok {
		return f.Thread
	}
	return 0
}

// varsLane is the lane of a request about a variables reference: the
// thread of its frame or scope, else the shared lane 0.
func varsLane(s *session, req godap.RequestMessage) jdwp.ThreadID {
	var ref int
	switch r := req.(type) {
	case *godap.VariablesRequest:
		ref = r.Arguments.VariablesReference
	case *godap.SetVariableRequest:
		ref = r.Arguments.VariablesReference
	}
	c, _ := s.dbg.refs.vars.get(ref)
	switch c := c.(type) {
	case *localsScope:
		return c.f.Thread
	case *staticsScope:
		return c.thread
	}
	return 0
}

// capabilities is what the adapter can do with a VM that can do everything.
func capabilities() initializeBody {
	return initializeBody{Capabilities: godap.Capabilities{
		SupportsConfigurationDoneRequest:   true,
		SupportsFunctionBreakpoints:        true,
		SupportsConditionalBreakpoints:     true,
		SupportsHitConditionalBreakpoints:  true,
		SupportsLogPoints:                  true,
		SupportsEvaluateForHovers:          true,
		SupportsClipboardContext:           true,
		SupportsSetVariable:                true,
		SupportsSetExpression:              true,
		SupportsCompletionsRequest:         true,
		CompletionTriggerCharacters:        []string{"."},
		SupportsValueFormattingOptions:     true,
		SupportsTerminateRequest:           true,
		SupportTerminateDebuggee:           true,
		SupportsDelayedStackTraceLoading:   true,
		SupportsRestartFrame:               true,
		SupportsStepInTargetsRequest:       true,
		SupportsExceptionInfoRequest:       true,
		SupportsExceptionOptions:           true,
		SupportsExceptionFilterOptions:     true,
		SupportsDataBreakpoints:            true,
		SupportsLoadedSourcesRequest:       true,
		SupportsBreakpointLocationsRequest: true,
		SupportsCancelRequest:              true,
		ExceptionBreakpointFilters: []godap.ExceptionBreakpointsFilter{
			{Filter: "uncaught", Label: "Uncaught Exceptions", Default: true, SupportsCondition: true, ConditionDescription: excConditionHelp},
			{Filter: "caught", Label: "Caught Exceptions", SupportsCondition: true, ConditionDescription: excConditionHelp},
		},
	}, SupportsHotCodeReplace: true}
}

const excConditionHelp = `Exception classes ("java.io.*, !java.io.EOFException") or a Java condition ("exception.getMessage() != null")`

// initializeBody is the initialize response's body: the standard
// capabilities and the custom ones.
type initializeBody struct {
	godap.Capabilities
	// SupportsHotCodeReplace announces the redefineClasses request.
	SupportsHotCodeReplace bool `json:"supportsHotCodeReplace,omitempty"`
}

// vmNeeds lists, per capability the adapter announces, what the VM must be
// able to do for it: capabilities it lacks are withdrawn with a
// capabilities event, and requests that need them fail saying so.
var vmNeeds = []struct {
	capability string
	can        func(jdwp.Capabilities) bool
	what       string
}{
	{"supportsRestartFrame", func(c jdwp.Capabilities) bool { return c.CanPopFrames }, "this VM cannot pop frames (CanPopFrames is false)"},
	{"supportsDataBreakpoints", func(c jdwp.Capabilities) bool { return c.CanWatchFieldAccess || c.CanWatchFieldModification },
		"this VM cannot watch fields (CanWatchFieldAccess and CanWatchFieldModification are false)"},
	{"supportsStepInTargetsRequest", func(c jdwp.Capabilities) bool { return c.CanGetBytecodes && c.CanGetConstantPool },
		"this VM cannot show bytecodes (CanGetBytecodes or CanGetConstantPool is false)"},
	{"supportsHotCodeReplace", func(c jdwp.Capabilities) bool { return c.CanRedefineClasses }, "this VM cannot redefine classes (CanRedefineClasses is false)"},
}

// withdrawn lists the announced capabilities a VM lacks, for the capabilities event.
func withdrawn(c jdwp.Capabilities) map[string]bool {
	out := map[string]bool{}
	for _, n := range vmNeeds {
		if !n.can(c) {
			out[n.capability] = false
		}
	}
	return out
}

// cannot returns an error if the VM lacks what capability needs.
func (d *debuggee) cannot(capability string) error {
	for _, n := range vmNeeds {
		if n.capability == capability && !n.can(d.caps) {
			return errors.New(n.what)
		}
	}
	return nil
}

func (s *session) initialize(_ context.Context, r *godap.InitializeRequest) (initializeBody, error) {
	if s.initialized {
		return initializeBody{}, failWith(ErrBadState, errors.New("the session is already initialized"))
	}
	v, err := clientview.New(r.Arguments, s.current)
	if err != nil {
		return initializeBody{}, err
	}
	s.wmu.Lock() // write reads the view (a cancel response may be on its way)
	s.client, s.view, s.initialized = r.Arguments, v, true
	s.long.ShowProgress(r.Arguments.SupportsProgressReporting)
	s.wmu.Unlock()
	return capabilities(), nil
}
