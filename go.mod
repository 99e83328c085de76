module github.com/bonebake/bonebake

go 1.26

require (
	github.com/chromedp/cdproto v0.159.0
	github.com/chromedp/chromedp v0.22.1
	github.com/edsrzf/mmap-go v1.2.0
	github.com/qmuntal/gltf v0.29.0
	github.com/spf13/cobra v1.10.2
	github.com/spf13/pflag v1.0.9
	github.com/ulikunitz/xz v0.5.17
	github.com/x448/float16 v0.8.4
	go.yaml.in/yaml/v3 v3.0.4
	golang.org/x/sys v0.46.0
	golang.org/x/term v0.44.0
)

require (
	github.com/go-json-experiment/json v0.0.0-20260213210345-44df1a37e875 // indirect
	github.com/inconshreveable/mousetrap v1.1.0 // indirect
)
