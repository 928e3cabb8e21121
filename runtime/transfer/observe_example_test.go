package transfer_test

import (
	"context"
	"log"
	"log/slog"
	"net/http"
	"os"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/exporters/stdout/stdoutmetric"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"

	"github.com/mcpfile/mcpfile/runtime/transfer"
	"github.com/mcpfile/mcpfile/runtime/transfer/token"
)

// Export the transfer layer's metrics: install a MeterProvider with an
// exporter (here stdoutmetric, which prints them every minute; a
// Prometheus or OTLP exporter is installed the same way) before the
// server is set up, and its records go to the logger you give, or to
// slog.Default().
func ExampleOptions_metrics() {
	exporter, err := stdoutmetric.New()
	if err != nil {
		log.Fatal(err)
	}
	provider := sdkmetric.NewMeterProvider(sdkmetric.WithReader(
		sdkmetric.NewPeriodicReader(exporter, sdkmetric.WithInterval(time.Minute))))
	defer provider.Shutdown(context.Background()) // exports what is left
	otel.SetMeterProvider(provider)               // for transfer, fetch and refused arguments

	keys, err := token.KeyringFromEnv("MCPFILE_TRANSFER_KEY", nil)
	if err != nil {
		log.Fatal(err)
	}
	server := mcp.NewServer(&mcp.Implementation{Name: "files", Version: "v1.0.0"}, nil)
	files, err := transfer.Register(server, transfer.Options{
		Keys: keys, PublicURL: "https://example.com/files/",
		Logger: slog.New(slog.NewJSONHandler(os.Stderr, nil)), // nil: slog.Default()
	})
	if err != nil {
		log.Fatal(err)
	}
	http.Handle("/files/", files)
}
