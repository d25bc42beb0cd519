"""Multimodal LLMs on Social-IQ: prompts, DeSIQ conditions, answers, runs, reports and LoRA fine-tuning."""
