// Command immudb-driver is the immudb side of `benchmark/run peers`: it makes the signing key the immudb server
// signs its states with, preloads the benchmark's keys, and runs one closed-loop workload window with immudb's own
// Go client (github.com/codenotary/immudb/pkg/client, gRPC), each client with its own session and its own state
// directory, every state signature checked against the public key.
//
//	immudb-driver keygen DIR
//	immudb-driver load -port P -data FILE [-batch N] [-workers W]
//	immudb-driver run -port P -data FILE -workload get|set|tx -clients N -warmup S -seconds S -state DIR -pubkey FILE -seed N
//
// FILE holds the records of the key space: a 32-byte key and its 128-byte value each, as written by the Java side,
// so both systems hold the same data. `run` prints "window-start" when the measured window opens and one JSON
// object when it closes (before any session is closed): operations, transactions, seconds, errors and the CPU
// seconds (user + system) this process used in the window.
package main

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"flag"
	"fmt"
	stdlog "log"
	mrand "math/rand"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/codenotary/immudb/pkg/api/schema"
	"github.com/codenotary/immudb/pkg/client"
)

const (
	// the benchmark's database: immudb's defaults but for the commit concurrency (30 would refuse 64 clients)
	database    = "bench"
	concurrency = 256
	keyBytes    = 32
	valueBytes  = 128
	recordSize  = keyBytes + valueBytes
	// every loop is bounded: a window never runs longer than this, whatever -seconds says
	maxWindow = 2 * time.Hour
)

func main() {
	stdlog.SetFlags(0)
	stdlog.SetPrefix("immudb-driver: ")
	if len(os.Args) < 2 {
		stdlog.Fatal("usage: immudb-driver keygen|load|run ...")
	}
	var err error
	switch os.Args[1] {
	case "keygen":
		if len(os.Args) != 3 {
			stdlog.Fatal("usage: immudb-driver keygen DIR")
		}
		err = keygen(os.Args[2])
	case "load":
		err = load(os.Args[2:])
	case "run":
		err = run(os.Args[2:])
	default:
		err = fmt.Errorf("unknown command %q", os.Args[1])
	}
	if err != nil {
		stdlog.Fatal(err)
	}
}

// keygen writes DIR/signing.key (an EC P-256 private key, the form immudb's -signingKey reads) and DIR/signing.pub.
func keygen(dir string) error {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return err
	}
	der, err := x509.MarshalECPrivateKey(k)
	if err != nil {
		return err
	}
	pub, err := x509.MarshalPKIXPublicKey(&k.PublicKey)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "signing.key"),
		pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: der}), 0o600); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "signing.pub"),
		pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pub}), 0o644)
}

func readData(path string) ([]byte, int, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, 0, err
	}
	if len(b) == 0 || len(b)%recordSize != 0 {
		return nil, 0, fmt.Errorf("%s: %d bytes is not a whole number of %d-byte records", path, len(b), recordSize)
	}
	return b, len(b) / recordSize, nil
}

func key(data []byte, i int) []byte {
	return data[i*recordSize : i*recordSize+keyBytes]
}

func value(data []byte, i int) []byte {
	return data[i*recordSize+keyBytes : (i+1)*recordSize]
}

func connect(ctx context.Context, port int, stateDir, pubkey, db string) (client.ImmuClient, error) {
	if err := os.MkdirAll(stateDir, 0o700); err != nil {
		return nil, err
	}
	opts := client.DefaultOptions().WithAddress("127.0.0.1").WithPort(port).WithDir(stateDir).WithMetrics(false)
	if pubkey != "" {
		opts = opts.WithServerSigningPubKey(pubkey)
	}
	c := client.NewClient().WithOptions(opts)
	if err := c.OpenSession(ctx, []byte("immudb"), []byte("immudb"), db); err != nil {
		return nil, fmt.Errorf("open session: %w", err)
	}
	return c, nil
}

// load creates the database and sets every record of the data file, -batch keys per transaction (SetAll), synced as
// every immudb write, from -workers sessions at once.
func load(args []string) error {
	fs := flag.NewFlagSet("load", flag.ExitOnError)
	port := fs.Int("port", 3322, "immudb's gRPC port on 127.0.0.1")
	dataFile := fs.String("data", "", "the records file")
	batch := fs.Int("batch", 1000, "keys per transaction")
	workers := fs.Int("workers", 8, "sessions loading at once")
	stateDir := fs.String("state", os.TempDir(), "client state directory")
	_ = fs.Parse(args)
	data, n, err := readData(*dataFile)
	if err != nil {
		return err
	}
	ctx := context.Background()
	admin, err := connect(ctx, *port, *stateDir, "", "defaultdb")
	if err != nil {
		return err
	}
	_, err = admin.CreateDatabaseV2(ctx, database, &schema.DatabaseNullableSettings{
		MaxConcurrency: &schema.NullableUint32{Value: concurrency},
		ReadTxPoolSize: &schema.NullableUint32{Value: concurrency},
	})
	_ = admin.CloseSession(ctx)
	if err != nil {
		return fmt.Errorf("create database %s: %w", database, err)
	}
	// -workers sessions at once, each taking the next batch: a synced immudb commits one batch per fsync per session
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, *workers)
	for w := 0; w < *workers; w++ {
		c, err := connect(ctx, *port, filepath.Join(*stateDir, fmt.Sprint("w", w)), "", database)
		if err != nil {
			return err
		}
		wg.Add(1)
		go func(c client.ImmuClient) {
			defer wg.Done()
			defer c.CloseSession(ctx)
			for {
				from := int(next.Add(int64(*batch))) - *batch
				if from >= n {
					return
				}
				to := min(n, from+*batch)
				req := &schema.SetRequest{}
				for i := from; i < to; i++ {
					req.KVs = append(req.KVs, &schema.KeyValue{Key: key(data, i), Value: value(data, i)})
				}
				if _, err := c.SetAll(ctx, req); err != nil {
					errs <- fmt.Errorf("preload keys %d..%d: %w", from, to, err)
					return
				}
			}
		}(c)
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return err
	}
	return nil
}

type result struct {
	Workload  string  `json:"workload"`
	Clients   int     `json:"clients"`
	Ops       int64   `json:"ops"`
	Tx        int64   `json:"tx"`
	Seconds   float64 `json:"seconds"`
	ClientCPU float64 `json:"client_cpu_s"`
	Errors    int64   `json:"errors"`
	FirstErr  string  `json:"first_error,omitempty"`
}

func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

// run: -clients goroutines, each with its own client, session and state directory, in a closed loop for -warmup
// seconds unmeasured and -seconds measured. get: one VerifiedGet of a random key. set: one VerifiedSet of a random
// key with a random value. tx: five VerifiedGets of distinct random keys, then one SetAll of five other distinct
// keys and a VerifiedTxByID of the transaction it made (10 operations).
func run(args []string) error {
	fs := flag.NewFlagSet("run", flag.ExitOnError)
	port := fs.Int("port", 3322, "immudb's gRPC port on 127.0.0.1")
	dataFile := fs.String("data", "", "the records file")
	workload := fs.String("workload", "get", "get, set or tx")
	clients := fs.Int("clients", 16, "concurrent clients")
	warmup := fs.Float64("warmup", 5, "unmeasured seconds before the window")
	seconds := fs.Float64("seconds", 10, "measured seconds")
	stateDir := fs.String("state", "", "directory for the clients' state directories")
	pubkey := fs.String("pubkey", "", "the server's signing public key (PEM); empty: states are not signed")
	seed := fs.Int64("seed", 1, "random seed (logged)")
	_ = fs.Parse(args)
	if *workload != "get" && *workload != "set" && *workload != "tx" {
		return fmt.Errorf("unknown workload %q", *workload)
	}
	if *warmup < 0 || *seconds <= 0 || *warmup+*seconds > maxWindow.Seconds() || *clients < 1 || *clients > 1024 {
		return fmt.Errorf("bad window: warmup %.1f s, seconds %.1f, clients %d", *warmup, *seconds, *clients)
	}
	data, n, err := readData(*dataFile)
	if err != nil {
		return err
	}
	if n < 10 {
		return fmt.Errorf("%d keys: a transaction needs 10 distinct keys", n)
	}
	stdlog.Printf("workload %s, %d clients, seed %d", *workload, *clients, *seed)
	ctx := context.Background()
	conns := make([]client.ImmuClient, *clients)
	for i := range conns {
		if conns[i], err = connect(ctx, *port, filepath.Join(*stateDir, fmt.Sprint("c", i)), *pubkey, database); err != nil {
			return err
		}
	}
	defer func() {
		for _, c := range conns {
			_ = c.CloseSession(ctx)
		}
	}()

	var measuring, stop atomic.Bool
	var ops, txs, errs atomic.Int64
	var firstErr atomic.Value
	fail := func(err error) {
		errs.Add(1)
		firstErr.CompareAndSwap(nil, err.Error())
	}
	var wg sync.WaitGroup
	for i, c := range conns {
		wg.Add(1)
		go func(c client.ImmuClient, r *mrand.Rand) {
			defer wg.Done()
			picks := make([]int, 10)
			val := make([]byte, valueBytes)
			for !stop.Load() {
				var done int64
				var err error
				switch *workload {
				case "get":
					_, err = c.VerifiedGet(ctx, key(data, r.Intn(n)))
					done = 1
				case "set":
					r.Read(val)
					_, err = c.VerifiedSet(ctx, key(data, r.Intn(n)), val)
					done = 1
				case "tx":
					distinct(r, n, picks)
					for _, k := range picks[:5] {
						if _, err = c.VerifiedGet(ctx, key(data, k)); err != nil {
							break
						}
					}
					if err == nil {
						req := &schema.SetRequest{}
						for _, k := range picks[5:] {
							v := make([]byte, valueBytes)
							r.Read(v)
							req.KVs = append(req.KVs, &schema.KeyValue{Key: key(data, k), Value: v})
						}
						var hdr *schema.TxHeader
						if hdr, err = c.SetAll(ctx, req); err == nil {
							_, err = c.VerifiedTxByID(ctx, hdr.Id)
						}
					}
					done = 10
				}
				if err != nil {
					fail(err)
					continue
				}
				if measuring.Load() {
					ops.Add(done)
					txs.Add(1)
				}
			}
		}(c, mrand.New(mrand.NewSource(*seed*1000+int64(i))))
	}
	time.Sleep(time.Duration(*warmup * float64(time.Second)))
	errs.Store(0)
	cpu0 := cpuSeconds()
	t0 := time.Now()
	measuring.Store(true)
	fmt.Println("window-start")
	time.Sleep(time.Duration(*seconds * float64(time.Second)))
	measuring.Store(false)
	secs := time.Since(t0).Seconds()
	res := result{Workload: *workload, Clients: *clients, Ops: ops.Load(), Tx: txs.Load(), Seconds: secs,
		ClientCPU: cpuSeconds() - cpu0, Errors: errs.Load()}
	if e, ok := firstErr.Load().(string); ok {
		res.FirstErr = e
	}
	out, _ := json.Marshal(res)
	fmt.Println(string(out))
	stop.Store(true)
	wg.Wait()
	return nil
}

// distinct fills picks with distinct random indexes below n.
func distinct(r *mrand.Rand, n int, picks []int) {
	for i := 0; i < len(picks); {
		k := r.Intn(n)
		dup := false
		for _, p := range picks[:i] {
			dup = dup || p == k
		}
		if !dup {
			picks[i] = k
			i++
		}
	}
}
